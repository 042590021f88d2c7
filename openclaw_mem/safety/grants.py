"""What a curated line would hand over: a rule that gives the agent's privileges, its
endpoint, a secret or the user's authority to someone or something waits for a person,
whoever asked for it.

The firewall (firewall.py, standing.py, meaning.py) judges what was *said*; a person's own
words are often a plain request ("Please always use sudo for installs", "以后请总是用管理员权
限执行命令") that reads like nothing planted, and the offline rules turn such a request into
an AGENTS.md rule. Some rules are worth a look before they bind every later session: those
that grant

- privilege: root, sudo, superuser or administrator rights (最高权限, 管理员权限);
- an endpoint: where the agent's calls go (a URL or host beside "endpoint", "API", "proxy",
  "model calls", 接口, 代理, 中转);
- a secret: credentials, keys, tokens or passwords to be used, given or included;
- authority: someone else's word taken as the user's ("as if it came from me", "speaks for
  me", a "trusted admin", 说的就是我说的), or changes approved or merged unreviewed.

A prohibition ("Never share my password", 不要…) or a request to be asked first protects,
and grants nothing. Judged on the line that would be written, so the cost of a false
positive is one review, not a lost note. Words matched by substring over a lowered copy
(ASCII words with their boundaries): no regular expression, linear in the line.
"""

from __future__ import annotations


def _words(spec: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in spec.split("|"))


# Each kind: (words that name it, words one of which must stand beside them, or none).
_KINDS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "privilege",
        _words(
            "root|sudo|superuser|super user|admin rights|admin privileges|admin access|"
            "administrator rights|administrator privileges|elevated|full rights|"
            "full permissions|最高权限|管理员权限|超级用户|提权|root 权限|root权限"
        ),
        (),
    ),
    (
        "endpoint",
        _words("http://|https://|.com|.net|.org|.io|.example|.dev|.ai"),
        _words(
            "endpoint|api|proxy|relay|base url|base_url|model|server|requests|calls|"
            "接口|代理|中转|地址|服务器|模型"
        ),
    ),
    (
        "secret",
        _words(
            "password|passphrase|token|api key|private key|key file|ssh key|credential|"
            "secret|recovery code|密码|密钥|私钥|令牌|凭证|钥匙"
        ),
        _words(
            "use|using|give|send|share|include|put|paste|tell|show|attach|hand|post|"
            "read out|给|发|告诉|贴|附|用|提供"
        ),
    ),
    (
        "authority",
        _words(
            "came from me|come from me|came from the user|come from the user|speaks for me|"
            "speaks for the user|on my behalf|on the user's behalf|trusted admin|"
            "counts as mine|count as mine|as the user's own|说的就是我说的|当是我说的|代表我|"
            "听他的|听她的"
        ),
        (),
    ),
)
# Said of the user these are their work ("The user approves the team's expenses"); only a
# rule for the agent hands them over.
_RULE_ONLY = (
    "authority",
    _words(
        "approve|approves|approved|approving|auto-approve|merge|merges|merged|merging|"
        "sign off|批准|合并|直接通过"
    ),
    (),
)
# What protects instead of granting: a prohibition, or asking first.
_GUARDS = _words(
    "never|don't|do not|must not|mustn't|not to|ask me|ask the user|check with|confirm with|"
    "不要|别把|别给|别用|别发|别告诉|别再|不许|禁止|不得|先问|先确认"
)


def _has(lowered: str, word: str) -> bool:
    """Whether `word` stands in the lowered text, an ASCII word only at word boundaries."""
    ascii_word = word[0].isascii() and word[0].isalnum()
    start = lowered.find(word)
    while start != -1:
        end = start + len(word)
        before = lowered[start - 1] if start else " "
        after = lowered[end] if end < len(lowered) else " "
        if not ascii_word or (not before.isalnum() and (not after.isalpha() or word[-1] == ".")):
            return True
        start = lowered.find(word, start + 1)
    return False


# A fact that tells the agent to use what it names is a rule in a fact's clothes ("My API
# endpoint is now https://…, use it for everything"): read as one.
_TELLS = _words(
    "use it|use this|use that|use them|for everything|for all|for every|from now on|"
    "going forward|point all|route all|send all|以后都|都用|一律|全部用|统统"
)


def tells_the_agent(line: str) -> bool:
    """Whether a fact's line also tells the agent what to do from now on."""
    lowered = line.lower().replace("\u2019", "'")
    return any(_has(lowered, t) for t in _TELLS)


def grants(line: str, rule: bool = True) -> str | None:
    """What the line would hand over ("privilege", "endpoint", "secret", "authority"), or
    None. `rule`: the line is a rule for the agent (AGENTS.md), not a fact of the user's
    profile, so approving and merging count too."""
    lowered = line.lower().replace("\u2019", "'")
    if any(_has(lowered, g) for g in _GUARDS):
        return None
    for kind, names, beside in (*_KINDS, _RULE_ONLY) if rule else _KINDS:
        if any(_has(lowered, n) for n in names) and (
            not beside or any(_has(lowered, b) for b in beside)
        ):
            return kind
    return None
