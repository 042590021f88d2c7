from __future__ import annotations

import pytest
from helpers import settings

from openclaw_mem.config import KEYS, default_config_text, load_config, read_config_file, trust
from openclaw_mem.errors import ConfigError


def test_sources_in_order(tmp_path):
    settings(tmp_path, '[git]\nautocommit = "log"\n[log]\ndefault_role = "user"\n')
    cfg = load_config(tmp_path, {"MEM_LOG_DEFAULT_ROLE": "assistant"})
    assert cfg["git.autocommit"] == "log" and cfg.sources["git.autocommit"] == "mem.toml"
    assert cfg["log.default_role"] == "assistant"
    assert cfg.sources["log.default_role"] == "env MEM_LOG_DEFAULT_ROLE"
    flagged = load_config(tmp_path, {}, {"git.autocommit": "never"})
    assert flagged["git.autocommit"] == "never" and flagged.sources["git.autocommit"] == "flag"


def test_a_list_variable_is_comma_separated(tmp_path):
    cfg = load_config(tmp_path, {"MEM_INDEX_EXCLUDE": "memory/old/**, archive/**"})
    assert cfg["index.exclude"] == ["memory/old/**", "archive/**"]
    assert cfg.sources["index.exclude"] == "env MEM_INDEX_EXCLUDE"
    one = load_config(tmp_path, {"MEM_INDEX_EXCLUDE": "memory/old/**"})
    assert one["index.exclude"] == ["memory/old/**"]


def test_defaults_without_a_file(tmp_path):
    cfg = load_config(tmp_path, {})
    assert all(cfg.sources[k.name] == "default" for k in KEYS)
    assert cfg["git.autocommit"] == "consolidate"


def test_bad_files_are_clear_and_not_used(tmp_path):
    for text, fragment in (
        ('[git]\nautocommit = "sometimes"\n', "must be one of never, consolidate, log"),
        ('[git]\nautocomit = "log"\n', "did you mean git.autocommit"),
        ("[git\n", "is not valid TOML"),
    ):
        (tmp_path / "mem.toml").write_text(text, encoding="utf-8")
        cfg = load_config(tmp_path, {})
        assert cfg["git.autocommit"] == "consolidate" and cfg.sources["git.autocommit"] == "default"
        assert fragment in cfg.problems[0][1] and fragment in cfg.warnings[-1]
        assert cfg.warnings[-1].startswith("not used: ")


def test_default_file_round_trips_to_defaults(tmp_path):
    (tmp_path / "mem.toml").write_text(default_config_text(), encoding="utf-8")
    assert read_config_file(tmp_path / "mem.toml") == {}
    uncommented = "\n".join(
        line[2:] if line.startswith("# ") and (" = " in line or line.startswith("# [")) else line
        for line in default_config_text().splitlines()
    )
    (tmp_path / "mem.toml").write_text(uncommented, encoding="utf-8")
    cfg = load_config(tmp_path, {})
    assert all(cfg[k.name] == k.default and cfg.sources[k.name] == "mem.toml" for k in KEYS)


def test_mem_config_command(ws):
    settings(ws.root, '[git]\nautocommit = "never"\n')
    data = ws.json("config")
    assert data["git.autocommit"] == {"value": "never", "source": "mem.toml"}
    assert ws("config", "log.default_role").stdout == "note\n"
    # A value as mem.toml and the table write it: true and 0.7, not Python's True.
    assert ws("config", "log.redact").stdout in ("true\n", "false\n")
    assert ws("config", "recall.vector_weight").stdout == "0.7\n"
    table = ws("config").stdout
    assert "git.autocommit" in table and "mem.toml" in table
    bad = ws("config", "nope", ok=False)
    assert bad.exit_code == 6 and "unknown setting 'nope'" in bad.stderr


def test_the_configuration_page_documents_every_key():
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
    text = page.read_text(encoding="utf-8")
    missing = [k.name for k in KEYS if f"`{k.name}`" not in text]
    assert not missing, f"docs/configuration.md lacks {missing}"


def test_a_pasted_section_block_adds_to_the_default_file(tmp_path):
    """The docs say to add an [llm] block: mem init's file must not declare one already."""
    text = (
        default_config_text()
        + '\n[llm]\nmodel = "qwen2.5:7b"\nbase_url = "http://localhost:11434/v1"\n'
    )
    (tmp_path / "mem.toml").write_text(text, encoding="utf-8")
    env = {"MEM_TRUST_FILE": str(tmp_path / "trusted.json")}
    untrusted = load_config(tmp_path, env)
    assert untrusted["llm.model"] == "gpt-4o-mini" and "mem trust" in untrusted.warnings[0]
    trust(tmp_path, env)  # the person read it: now it counts
    cfg = load_config(tmp_path, env)
    assert cfg["llm.model"] == "qwen2.5:7b" and cfg.sources["llm.model"] == "mem.toml"
    assert cfg.warnings == ()


def test_a_section_declared_twice_says_so(tmp_path):
    (tmp_path / "mem.toml").write_text('[llm]\nmodel = "a"\n[llm]\ntimeout = 5\n', encoding="utf-8")
    assert "declares [llm] twice" in load_config(tmp_path, {}).problems[0][1]
    with pytest.raises(ConfigError) as err:  # nothing to trust in it
        trust(tmp_path, {"MEM_TRUST_FILE": str(tmp_path / "trusted.json")})
    assert "declares [llm] twice" in err.value.message


@pytest.mark.parametrize(
    "name, value, fragment",
    [
        ("MEM_LLM_TIMEOUT", "-1", "llm.timeout in MEM_LLM_TIMEOUT must be at least 0.1"),
        ("MEM_RECALL_K", "0", "recall.k in MEM_RECALL_K must be at least 1"),
        ("MEM_RECALL_MMR_LAMBDA", "1.5", "must be at most 1"),
        ("MEM_RECALL_DECAY_LAMBDA", "nan", "must be a finite number"),
        ("MEM_CONSOLIDATE_REDACT_PATTERNS", "(unclosed", "not a regular expression"),
        ("MEM_LLM_MAX_RETRIES", "99999999999999999999999", "must be at most 20"),
    ],
)
def test_values_are_checked_where_they_are_read(tmp_path, name, value, fragment):
    cfg = load_config(tmp_path, {name: value})
    ((key, message, counted),) = cfg.problems
    assert fragment in message and counted and cfg.sources[key] == "default"


def test_a_bad_flag_value_is_a_usage_error(tmp_path):
    from openclaw_mem.errors import UsageError

    with pytest.raises(UsageError) as err:
        load_config(tmp_path, {}, {"recall.k": 0})
    assert err.value.message == "recall.k on the command line must be at least 1, not 0"


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    """An outside audit: Notepad's BOM made the whole file invalid TOML, every setting
    ignored with a warning on each command."""
    path = tmp_path / "mem.toml"
    path.write_bytes(b'\xef\xbb\xbf[log]\ndefault_role = "user"\n')
    assert read_config_file(path) == {"log.default_role": "user"}
