"""Issue 40's secret paths: `mem diff` hides keys; a key pasted in two turns is hidden from
the model; an endpoint's credentials (user:password@, ?api-key=) never leave the settings
(not into HISTORY.md, a commit, the output); and the new shapes through recall."""

from __future__ import annotations

import json
import subprocess

import pytest
from llm_server import tool_call

from openclaw_mem.consolidate.providers.openai_compat import OpenAIProvider, without_credentials
from openclaw_mem.safety.secrets import has_secret, redact

KEY = "sk-proj-AbCdEf0123456789AbCdEf0123"


def test_mem_diff_hides_keys(ws):
    ws("log", "--at", "2026-11-30T09:00", f"my key is {KEY} and password=Hunter2Hunter2")
    shown = ws("diff").stdout
    assert KEY not in shown and "Hunter2Hunter2" not in shown
    assert "+my key is [REDACTED] and password=[REDACTED]" in shown


@pytest.mark.slow
def test_a_key_pasted_in_two_turns_never_reaches_the_model(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "5")
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "first half: sk-proj-4fT9qPz2Lm8Xw3")
    ws("log", "--at", "2026-11-30T09:01", "--role", "user", "Rv7Nb1Kd5Hj0Gc6YsQp2 is the rest")
    llm.push(tool_call({"history_entry": "[2026-11-30 09:00] A key.", "edits": [], "skip": [1, 2]}))
    ws("consolidate", "--provider", "openai", "--base-url", llm.url, "--model", "m",
       "--now", "2026-11-30T10:00")  # fmt: skip
    sent = json.dumps(llm.requests, ensure_ascii=False)
    assert "4fT9qPz2Lm8Xw3" not in sent and "Rv7Nb1Kd5Hj0Gc6YsQp2" not in sent
    assert "is the rest" in sent  # the words around it still go


@pytest.mark.parametrize(
    "url, secret",
    [
        ("https://bob:Pa55w0rd!x@llm.example.com:8443/v1", "Pa55w0rd!x"),
        ("https://llm.example.com/v1?api-key=zq8R2mW9xK4vB7nL", "zq8R2mW9xK4vB7nL"),
        ("http://[::1]:8080/v1#token=abc123XYZ789", "abc123XYZ789"),
    ],
)
def test_an_endpoints_credentials_are_not_in_its_label(url, secret):
    shown = OpenAIProvider("m", url, "", 1, 0, 16000).label
    assert secret not in shown and without_credentials(url) in shown


@pytest.mark.slow
def test_endpoint_credentials_never_reach_history_a_commit_or_the_output(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "5")
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I live in Lisbon now.")
    url = llm.url.replace("http://", "http://admin:Endp0int-Secret@")
    llm.push(tool_call({"history_entry": "[2026-11-30 09:00] Moved.", "edits": [], "skip": [1]}))
    done = ws("consolidate", "--provider", "openai", "--base-url", url, "--model", "m",
              "--now", "2026-11-30T10:00")  # fmt: skip
    log = subprocess.run(
        ["git", "-C", str(ws.root), "log", "-p", "--all"], capture_output=True, text=True
    ).stdout
    for where in (done.stdout, done.stderr, (ws.root / "HISTORY.md").read_text("utf-8"), log):
        assert "Endp0int-Secret" not in where
    assert "127.0.0.1" in (ws.root / "HISTORY.md").read_text("utf-8")  # the host is said


@pytest.mark.parametrize(
    "text, secret",
    [
        (
            "Vault root token hvs.CAESIH2kLq9Wp4Xz7Rt1Yu5Io8Pa3Sd6Fg0Hj2Kl4Zx6Cv8Bn",
            "CAESIH2kLq9Wp4Xz7Rt1Yu5Io8Pa3Sd6Fg0",
        ),
        ("El password del wifi: no, la contraseña es Luna_Llena_9", "Luna_Llena_9"),
        ("Visa 4242 4242 4242 4242 cvv 123 for the test shop", "4242 4242 4242 4242"),
        ("echo 'Sup3r!Root' | sudo -S whoami", "Sup3r!Root"),
    ],
)
def test_new_shapes_never_print_through_recall(ws, text, secret):
    ws("log", "--at", "2026-11-30T09:00", text)
    shown = ws("recall", "--json", text.split()[0]).stdout
    assert secret not in shown and "[REDACTED]" in shown


# A password that is one plain word ends its clause: "the wifi password is sunshine". Prose
# goes on past its word ("the password is in the vault") or says a property of it.
PLAIN_WORD_PASSWORDS = [
    ("Remember: my password is purplemonkeydishwasher", "purplemonkeydishwasher"),
    ("Remember: the wifi password is sunshine.", "sunshine"),
    ("the password for the VPN is BlueElephantSky, don't share it", "BlueElephantSky"),
    ("our garage passcode is still Tangerine", "Tangerine"),
    ("I prefer the passcode Pl9oI7uYt6rH for my phone", "Pl9oI7uYt6rH"),
    ("the admin login is admin / S3cr3tP@ssw0rd!", "S3cr3tP@ssw0rd!"),
    # its line ends its clause too (a review: "$" matched only at the text's end)
    ("Home setup:\n- the wifi password is sunshine\n- router in the hall", "sunshine"),
    ("the wifi password is sunshine\r\n", "sunshine"),
]
PROSE_ABOUT_A_PASSWORD = [
    "the password is correct.",
    "The password is expired, ask IT for a new one",
    "the password is in the vault",
    "my password is the same as my username? no way",
    "The password was changed yesterday.",
    "a password is required",
    "The password is too short.",
    "the new passcode is mandatory!",
    "The login is at /admin / dashboard",
    "I will pin 2025 goals to the wall",  # the verb, not a PIN
]


@pytest.mark.parametrize(("text", "secret"), PLAIN_WORD_PASSWORDS)
def test_a_plain_word_password_is_found(text, secret):
    assert secret not in redact(text)[0]
    assert has_secret(text)


@pytest.mark.parametrize("text", PROSE_ABOUT_A_PASSWORD)
def test_prose_about_a_password_is_no_secret(text):
    assert redact(text) == (text, 0)


def test_a_plain_word_password_never_reaches_the_curated_files(ws):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", PLAIN_WORD_PASSWORDS[0][0])
    ws("log", "--at", "2026-11-30T09:01", "--role", "user", PLAIN_WORD_PASSWORDS[1][0])
    done = ws("consolidate", "--provider", "offline")
    # The daily log keeps it verbatim; the commits' messages and curated files never do.
    curated = ("MEMORY.md", "USER.md", "HISTORY.md", "AGENTS.md")
    log = subprocess.run(
        ["git", "-C", str(ws.root), "log", "-p", "--format=%B", "--", *curated],
        capture_output=True,
        text=True,
    ).stdout
    shown = ws("recall", "--json", "password").stdout
    for where in (
        done.stdout,
        done.stderr,
        log,
        shown,
        *((ws.root / name).read_text("utf-8") for name in ("MEMORY.md", "USER.md", "HISTORY.md")),
    ):
        assert "purplemonkeydishwasher" not in where and "sunshine" not in where
    assert "2 findings" in ws("audit", ok=False).output
