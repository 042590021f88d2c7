from __future__ import annotations

import pytest

from openclaw_mem.config import KEYS, default_config_text, load_config, read_config_file
from openclaw_mem.errors import ConfigError


def test_sources_in_order(tmp_path):
    (tmp_path / "mem.toml").write_text(
        '[git]\nautocommit = "log"\n[log]\ndefault_role = "user"\n', encoding="utf-8"
    )
    cfg = load_config(tmp_path, {"MEM_LOG_DEFAULT_ROLE": "assistant"})
    assert cfg["git.autocommit"] == "log" and cfg.sources["git.autocommit"] == "mem.toml"
    assert cfg["log.default_role"] == "assistant"
    assert cfg.sources["log.default_role"] == "env MEM_LOG_DEFAULT_ROLE"
    flagged = load_config(tmp_path, {}, {"git.autocommit": "never"})
    assert flagged["git.autocommit"] == "never" and flagged.sources["git.autocommit"] == "flag"


def test_defaults_without_a_file(tmp_path):
    cfg = load_config(tmp_path, {})
    assert all(cfg.sources[k.name] == "default" for k in KEYS)
    assert cfg["git.autocommit"] == "consolidate"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('[git]\nautocommit = "sometimes"\n', "must be one of never, consolidate, log"),
        ('[git]\nautocomit = "log"\n', "did you mean git.autocommit"),
        ("[git\n", "is not valid TOML"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path, text, fragment):
    (tmp_path / "mem.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, {})
    assert fragment in err.value.message


def test_default_file_round_trips_to_defaults(tmp_path):
    (tmp_path / "mem.toml").write_text(default_config_text(), encoding="utf-8")
    assert read_config_file(tmp_path / "mem.toml") == {}
    uncommented = "\n".join(
        line[2:] if line.startswith("# ") and " = " in line else line
        for line in default_config_text().splitlines()
    )
    (tmp_path / "mem.toml").write_text(uncommented, encoding="utf-8")
    cfg = load_config(tmp_path, {})
    assert all(cfg[k.name] == k.default and cfg.sources[k.name] == "mem.toml" for k in KEYS)


def test_mem_config_command(ws):
    (ws.root / "mem.toml").write_text('[git]\nautocommit = "never"\n', encoding="utf-8")
    data = ws.json("config")
    assert data["git.autocommit"] == {"value": "never", "source": "mem.toml"}
    assert ws("config", "log.default_role").stdout == "note\n"
    table = ws("config").stdout
    assert "git.autocommit" in table and "mem.toml" in table
    bad = ws("config", "nope", ok=False)
    assert bad.exit_code == 6 and "unknown setting 'nope'" in bad.stderr


def test_readme_documents_every_key():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    missing = [k.name for k in KEYS if f"`{k.name}`" not in readme]
    assert not missing, f"README lacks {missing}"
