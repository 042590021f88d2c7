"""The secret shapes of issue 31, each logged verbatim and then read back through every way
memory text leaves mem: recall, context, get, audit, forget, review, MCP, and the request a
consolidation sends to a model. None of them may show the secret (the daily log keeps it).

Every key, token and password here is invented; the base64 bodies are drawn from a seeded
hash so they look like real key material without being any."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from llm_server import tool_call


def _material(seed: str, n: int) -> str:
    """n characters of base64 that look random (a key body), the same on every run."""
    out = b""
    while len(out) * 4 // 3 < n + 4:
        out += hashlib.sha256(f"{seed}{len(out)}".encode()).digest()
    return base64.b64encode(out).decode()[:n]


_PEM_LINES = [_material(f"pem{i}", 64) for i in range(40)] + [_material("pem-last", 28) + "=="]
PEM = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *_PEM_LINES, "-----END RSA PRIVATE KEY-----"])
_SPLIT = "sk-proj-" + _material("split", 40).replace("+", "x").replace("/", "y")
# An AWS secret key with neither / nor + (about a quarter of real ones): the bare shape
# cannot tell it from any 40 letters, its label or its key id beside it can.
_AWS_PLAIN = _material("aws-plain", 40).replace("+", "q").replace("/", "Z")

# name -> (what is logged, a word recall finds it by, the parts that must never be shown)
SHAPES = {
    "azure sas": (
        "backups upload with https://acct.blob.core.windows.net/dumps/db.gz?sv=2023-01-03"
        "&ss=b&srt=o&sp=rwc&se=2026-12-31T00:00:00Z&spr=https&sig=Ux7%2BkQw9EXAMPLEsig0Zm1"
        "%2FpL4vTn8aBcD%3D",
        "backups",
        ["Ux7%2BkQw9EXAMPLEsig0Zm1"],
    ),
    "telegram": (
        "the alerting bot uses 6123456789:AAGx9EXAMPLEtelegram_Tok3n-abcdEF12 for the ops chat",
        "alerting",
        ["AAGx9EXAMPLEtelegram_Tok3n"],
    ),
    "sendgrid": (
        "transactional mail key SG.Q1w2E3r4T5y6U7i8O9p0aS"
        ".Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9Dd8Ss7Aa6Qq5W",
        "transactional",
        ["Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0", "Q1w2E3r4T5y6U7i8O9p0aS"],
    ),
    "discord": (
        "moderation bot token NzY1NDMyMTA5ODc2NTQzMjEwOQ.Yx4_Bq.k9EXAMPLEdiscordHmac_Zq8vW2pLm0",
        "moderation",
        ["k9EXAMPLEdiscordHmac", "NzY1NDMyMTA5ODc2NTQzMjEwOQ"],
    ),
    "mysql -p": (
        "restore the reporting replica: mysql -h replica -u report -pRep0rt!ng2026 stats < a.sql",
        "replica",
        ["Rep0rt!ng2026"],
    ),
    "mysql -p quoted": (
        "nightly dump runs mysqldump -u backup -p'Dump Pa55 word' --single-transaction shop",
        "nightly",
        ["Dump Pa55 word"],
    ),
    "password in prose": (
        "for the warehouse VPN the password is the same as before: Wh4reh0use#Vpn",
        "warehouse",
        ["Wh4reh0use#Vpn"],
    ),
    "password in prose (zh)": (
        "仓库那台服务器的密码还是和上次一样：Cang9ku!2026",
        "仓库",
        ["Cang9ku!2026"],
    ),
    "pw:": ("staging grafana pw: Gr4f-ana77x", "grafana", ["Gr4f-ana77x"]),
    "aws create-access-key json": (
        f'the deploy credentials: "AccessKeyId": "AKIAEXAMPLEQ3EGSRTYU", '
        f'"SecretAccessKey": "{_AWS_PLAIN}",',
        "credentials",
        [_AWS_PLAIN, "AKIAEXAMPLEQ3EGSRTYU"],
    ),
    "aws key id and secret": (
        f"the billing export uses aws key AKIAEXAMPLEQ3EGSRTYU secret {_AWS_PLAIN}",
        "billing",
        [_AWS_PLAIN, "AKIAEXAMPLEQ3EGSRTYU"],
    ),
    "split key": (
        f"new eval key, pasted in two lines: {_SPLIT[:18]}\n{_SPLIT[18:]}\nrotate next month",
        "eval",
        [_SPLIT[:18], _SPLIT[18:]],
    ),
    "seed phrase": (
        "hardware wallet seed: orbit pencil velvet harbor tunnel crisp amber noble quiet "
        "falcon meadow ripple",
        "hardware",
        ["orbit pencil velvet harbor tunnel crisp amber noble quiet falcon meadow ripple"],
    ),
    "seed phrase (zh)": (
        "冷钱包助记词：orbit pencil velvet harbor tunnel crisp amber noble quiet falcon meadow "
        "ripple castle drift",
        "冷钱包",
        ["velvet harbor tunnel"],
    ),
    "pem body": (
        f"the signing key for the release box:\n{PEM}\nsigning happens on the release box only",
        "signing",
        [line[:24] for line in _PEM_LINES],
    ),
}


def _clean(text: str, needles) -> bool:
    return not any(n in text for n in needles)


def _logged(ws, name: str):
    text, word, needles = SHAPES[name]
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "hello there")
    ws("log", "--at", "2026-11-30T09:01", "--role", "user", text)
    log = (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    assert all(n in log for n in needles)  # the log itself stays verbatim
    return word, needles


@pytest.mark.parametrize("name", list(SHAPES))
def test_recall_context_and_get_hide_the_shape(ws, name):
    word, needles = _logged(ws, name)
    for args in (("recall", "--json", word), ("recall", word)):
        out = ws(*args, "--now", "2026-11-30T10:00").stdout
        assert _clean(out, needles) and "[REDACTED]" in out, out
    out = ws("context", "--now", "2026-11-30T10:00", word).stdout
    assert _clean(out, needles), out
    whole = ws("get", "memory/2026-11-30.md").stdout
    assert _clean(whole, needles) and "[REDACTED]" in whole
    # Each line alone, as memory_get hands them out: no line shows its part of the secret.
    count = len((ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8").splitlines())
    for n in range(1, count + 1):
        assert _clean(ws("get", f"memory/2026-11-30.md:{n}").stdout, needles), n


@pytest.mark.parametrize("name", list(SHAPES))
def test_audit_names_the_shape_and_hides_it(ws, name):
    _, needles = _logged(ws, name)
    for args in (("audit",), ("audit", "--json"), ("audit", "--history")):
        out = ws(*args, ok=False)
        assert out.exit_code == 10, out.stdout
        assert _clean(out.stdout + out.stderr, needles), out.stdout


@pytest.mark.parametrize("name", ["split key", "pem body", "password in prose"])
def test_forget_prints_no_part_of_the_shape(ws, name):
    _, needles = _logged(ws, name)
    lines = (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8").splitlines()
    holding = [n for n, line in enumerate(lines, 1) if any(x in line for x in needles)]
    target = f"memory/2026-11-30.md#L{holding[0]}-L{holding[0]}"
    if len(holding) > 1:  # one line of a secret over several: the rest stays in the log
        target = f"memory/2026-11-30.md#L{holding[1]}-L{holding[1]}"
    out = ws("forget", "--hard", target)
    assert _clean(out.stdout, needles), out.stdout


def test_a_recall_snippet_that_starts_inside_a_private_key_shows_none_of_it(ws):
    _, needles = _logged(ws, "pem body")
    hits = ws.json("recall", "release box signing", "--now", "2026-11-30T10:00")["results"]
    lines = (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8").splitlines()
    begin = next(n for n, line in enumerate(lines, 1) if line.startswith("-----BEGIN"))
    inside = [h for h in hits if h["startLine"] > begin and h["path"] == "memory/2026-11-30.md"]
    assert inside, hits  # the entry is long enough that a chunk starts within the block
    for h in hits:
        assert _clean(h["snippet"], needles), h


def test_the_model_never_sees_a_shape(ws, llm):
    for i, (text, _, _) in enumerate(SHAPES.values()):
        ws("log", "--at", f"2026-11-30T09:{i:02d}", "--role", "user", text)
    llm.push(tool_call({"history_entry": "[2026-11-30 09:00] Infra notes.", "edits": []}))
    result = ws(
        "consolidate",
        "--provider",
        "openai",
        "--base-url",
        llm.url,
        "--now",
        "2026-11-30T10:00",
        ok=False,
    )
    assert result.exit_code == 12  # an answer with nothing to use (issue 41)
    sent = json.dumps(llm.requests, ensure_ascii=False)
    assert llm.requests and "[REDACTED]" in sent
    for name, (_, _, needles) in SHAPES.items():
        assert _clean(sent, needles), name


def test_review_shows_no_hand_edited_key(ws, llm):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "We deploy to eu-west-1 on Fridays.")
    answer = {
        "history_entry": "[2026-11-30 09:00] Deploy notes.",
        "edits": [
            {
                "file": "MEMORY",
                "op": "add",
                "section": "Facts",
                "text": "Deploys go to eu-west-1 on Fridays.",
                "type": "fact",
                "importance": 0.7,
                "confidence": 0.9,
                "sources": [1],
            }
        ],
    }
    llm.push(tool_call(answer))
    ws("consolidate", "--provider", "openai", "--base-url", llm.url, "--propose")
    folder = ws.root / ".mem" / "proposals"
    path = next(folder.glob("*.json"))
    data = json.loads(path.read_text(encoding="utf-8"))
    # A person (or a script) edits the proposal file by hand before anyone reviews it.
    key = "aws_secret_access_key=Hx7kQ2vN9pL4mR8sT1wY5zB3cD6fG0jK2lM4nP7q"
    data["edits"][0]["text"] = f"Deploys go to eu-west-1 with AKIAEXAMPLEKEY123456 and {key}"
    data["paragraph"] = data["paragraph"].replace("Deploy notes.", f"Deploy notes, {key}.")
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    needles = ("AKIAEXAMPLEKEY123456", "Hx7kQ2vN9pL4mR8sT1wY5zB3cD6fG0jK2lM4nP7q")
    # A proposal edited outside mem is no proposal (its seal fails): never shown, nor its key.
    assert ws.json("review")["proposals"] == []
    for args in (("review", data["id"]), ("review", data["id"], "--json")):
        out = ws(*args, ok=False)
        assert out.exit_code == 4 and _clean(out.stdout + out.stderr, needles)


@pytest.mark.slow
def test_mcp_search_and_get_hide_every_shape(ws):
    from test_mcp import _data, _run

    for i, (text, _, _) in enumerate(SHAPES.values()):
        ws("log", "--at", f"2026-11-30T09:{i:02d}", "--role", "user", text)
    calls = [("memory_search", {"query": word, "maxResults": 5}) for _, word, _ in SHAPES.values()]
    calls.append(("memory_get", {"path": "memory/2026-11-30.md"}))
    _, results = _run(ws.root, calls=calls)
    said = json.dumps([_data(r) for r in results], ensure_ascii=False)
    assert "[REDACTED]" in said
    for name, (_, _, needles) in SHAPES.items():
        assert _clean(said, needles), name
