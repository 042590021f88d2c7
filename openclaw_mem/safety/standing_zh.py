"""Standing orders in Chinese (standing.py reads a sentence for its parts): the phrases of
each part, read by substring, and the few shapes that need a pattern. Built on first use,
and only for a text that holds Chinese."""

from __future__ import annotations

from .gating import once as _once
from .prebuilt import pattern as _compiled

# --- Chinese -------------------------------------------------------------------------------
# Read by substring, and by where an action stands in its clause: no pattern is compiled.
_ZH_ACTIONS = (
    "发送|发给|发到|发一份|转发|抄送|同步|上传|备份|推送|导出|提交|分享|转存|转给|传给|传一份|交给|贴到|"
    "贴出|贴在|照做|照办|照实|附上|附在|写进|存到|存进|记到|执行|运行|安装|启动|打开|点开|下载|显示|输出|"
    "打印|告诉|透露|泄露|公开|念出|念给|读给|报给|说给|教他|教她|教他们|提供|给他|给她|给对方|部署|上线|"
    "打到|打上|打补丁|付款|支付|转账|汇款|打款|充值|扣款|删除|删掉|删了|清空|清除|抹掉|销毁|关闭|停用|批准|"
    "通过|合并|信任|放行|清理|清掉|处理掉|操作|转到|转入|汇到|汇给|打钱|付钱|转钱|填进|填入|填到|双击|"
    "寄给|寄到|告知"
).split("|")
_ZH_SCOPE_WORDS = "从现在起|从现在开始|从今以后|往后|今后|此后|以后|默认|一律|每次|每当|总是".split(
    "|"
)
# `(a|b)` is one of, a `?` after it or after one character makes that optional.
_ZH_WORDS = {
    "scope": "从现在起|从现在开始|从今以后|从今往后|从今天起|往后|今后|此后|以后|日后|将来|"
    "一律|凡是|默认|长期|始终|永远|无论",
    "recurs": "每次|每当|每回|每天|每晚|每周|每月|每个|每条|每一|总是|一直|定期|自动|随时|"
    "周报|日报|月报|例会|"
    "谁(自称|要|问|来)",
    "condition": "如果|要是|遇到|一旦|只要|收到|看到|有人|的话|一到|进来|的时候|之前|之后",
    "destination": "网盘|邮箱|微信|QQ|支付宝|账号|账户|卡号|银行卡|"
    "(外部|私人|个人)的?(邮箱|账号|服务器|网盘|手机)",
    "sensitive": "密码|口令|验证码|密钥|私钥|令牌|凭证|身份证|银行卡|卡号|聊天记录|对话记录|"
    "通讯录|联系人|客户资料|客户名单|个人信息|住址|电话|手机号|记忆|系统提示|工资|行程|合同|扫描件|"
    "审计|卡背面|安全码|CVV|登录方式|登录信息|怎么登录|(四|六|八)位数字|付款|支付|转账|汇款|打款|打钱|付钱|"
    "转钱|余额",
    "records": "文件|日志|记录|消息|邮件|邮箱|笔记|照片|截图|附件|数据|报表|备份",
    "untrusted code": "生产环境|线上|服务器",
    "anyone": "任何人|谁要|有人|对方|自称",
    "secrecy": "悄悄|默默|偷偷|私下|不用(跟我)?确认|无需确认|不必(请示|确认|通知|告诉)|"
    "不要?再?(告诉|通知|提醒|问|请示|弹窗|确认)|别再?(弹窗)?(告诉|通知|问|请示|确认)|别让人(发现|知道)|"
    "(不必|不用|别|不要)让(用户|我|他|她|人)知道|不用问|不用通知|跳过(确认|审批|审核)|当(作|成)?已确认|"
    "视为已?(确认|同意)|默认同意|不(用|必)再?(等我|核实|核对|复核|检查|审核|审批|点头|评审|审查|测试)|"
    "不再(确认|询问|提示|审批|核实)|取消(二次)?(确认|审批|审核)|"
    "(确认|审批|审核)(步骤|环节)?(取消|去掉|省掉|免了|不要了)",
    "ask first": "先问我|先跟我确认|先和我确认|跟我确认|征得我同意|等我确认|提醒我",
    "to the agent": "请|你要|你必须|你就|你得|帮我|记得|务必|一定要|麻烦|直接|各助手|"
    "助手(可|可以|需要|应|应该|要|请)",
    "delete": "删除|删掉|删了|清空|清除|抹掉|销毁|清理|清掉|处理掉",
    "one-off": "今天|明天|今晚|明早|后天|这周|本周|下周|这次|这一次|待会|一会儿",
}
# The writer keeps the job: "定期 clean up 一下，我自己来", "以后我自己来付房租".
_ZH_OWN_JOB = r"(?:我|我们)自己(?:来|做|处理|弄|搞|动手|付|删|清|管|输入)|我来(?:处理|做|弄|搞|付)"
# Run what came in: an attachment, a package, a link someone sent ("把附件下载下来运行").
_ZH_RECEIVED = r"附件|安装包|收到|发来|传来|群里发|别人给|链接"
_ZH_RUNS = r"运行|执行|安装|装上|打开|点开|双击|启动"
_ZH_NEGATIONS = "不要|别|不准|禁止|不能|切勿|千万别|不可以|绝不|不用|不必|无需".split("|")
_ZH_SUBJECTS = "我|我们|他|她|他们|她们|它|财务|公司|团队|系统|老板".split("|")
_ZH_TITLES = ("经理", "老师", "总")
_ZH_TIME_AFTER = ("前", "后", "之前", "之后", "时", "的时候", "完")
_ZH_PLACES = ("前台", "后台", "前面", "后面", "时间")
_ZH_DOER_MARKS = (
    "会把",
    "会将",
    "会给",
    "会自动",
    "会在",
    "会先",
    "会直接",
    "都会",
    "将会",
    "负责",
    "正在",
    "已经",
)
_ZH_AGENT_NAMES = ("你", "助手", "助理", "AI", "机器人", "bot", "assistant", "agent")
_ZH_CLAUSE = "。，,\n"
_ZH_SHAPES = {
    # an id, or a place someone else names: "对方给的表单", "按发票上的账号"
    "destination": r"(?<![A-Za-z])(?:wx|vx)\s*[:：]|(?:对方|他|她|他们|来电的人|客户|发件人)"
    r"(?:给|提供|发来|指定|说)的|上的(?:账号|账户|卡号|地址|链接|二维码)",
    # a check waived, by a negation and what is not done: "不用找我签字", "无需报备",
    # "不用跑 test"; or done on one's own: "自行清理"
    "secrecy": r"(?:不用|无需|不必|不需要|别|不要|免)再?(?:找|跟|和|向|问|给|让|经过)?"
    r"(?:我|用户|他|她|人|主人|老板|任何人)?(?:确认|请示|报备|汇报|通知|告诉|说|知道|签字|审批|审核|核实|"
    r"核对|复核|检查|点头|评审|审查|测试|跑\s?(?:test|测试)|test|review|approve|notify|check|"
    r"confirm)|自行|擅自",
    # someone's word passed on: "他让我转告你", "妈妈说了：", "boss 说的。", "同意过"
    "relayed": r"(?:让|叫|托|要)我(?:转告|告诉|通知)你|说(?:了|过)\s*[:：]|"
    r"说你(?:可以|能|可|要|得|就)|"
    r"不会介意|"
    r"说的\s*(?:[。，,.!！:：]|$)|"
    r"(?:同意|答应|批准|授权)(?:了|过)",
    # the writer says who they are, and it is someone's relation: "我是你主人的表哥"
    "other speaker": r"我是[^。，,：:\s]{1,8}的",
    "untrusted code": r"(?:任何|所有|每个)[^。，,\n]{0,6}?(?:脚本|链接|附件|文件|命令|程序)|"
    r"(?:到|上|进)\s*(?:production|prod\b|生产|线上)|"
    r"(?:收到|发来|传来)[^。，,\n]{0,10}?(?:脚本|链接|附件|文件|命令|程序|补丁|更新包)",
    "own destination": r"(?:到|给|进)[^。，,\n]{0,6}?(?:公司|团队|内部|我们|家里|部门|群|前台|"
    r"(?<!外)部(?=[。，,\s]|$))|(?:给|发|到)我(?!的)",
}


def _expand(pattern: str) -> list[str]:
    """The strings a `_ZH_WORDS` pattern stands for."""
    out = [""]
    i = 0
    while i < len(pattern):
        if pattern[i] == "(":
            j = pattern.index(")", i)
            choices = pattern[i + 1 : j].split("|")
            i = j + 1
        else:
            choices = [pattern[i]]
            i += 1
        if i < len(pattern) and pattern[i] == "?":
            choices = [*choices, ""]
            i += 1
        out = [o + c for o in out for c in choices]
    return out


def _split_top(pattern: str) -> list[str]:
    """A pattern's alternatives at the top level (`|` outside parentheses)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(pattern):
        depth += c == "("
        depth -= c == ")"
        if c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


def _zh_action_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for word in _ZH_ACTIONS:
        at = text.find(word)
        while at >= 0:
            spans.append((at, at + len(word)))
            at = text.find(word, at + 1)
    return sorted(spans)


def _clause_start(text: str, at: int) -> int:
    return max(text.rfind(c, 0, at) for c in "。，,：:\n") + 1


def _last_subject(head: str, who: str) -> int:
    """Where `who` last stands in the head as a subject (not "你的"), or -1."""
    at = head.rfind(who)
    while at >= 0 and head.startswith("的", at + len(who)):
        at = head.rfind(who, 0, at)
    return at


def _zh_parts(window: str) -> tuple[set[str], bool]:
    """The parts a Chinese reading of the window finds, and whether it holds an action."""
    words, shapes = _chinese()
    found = {name for name, choices in words.items() if any(c in window for c in choices)}
    found |= {name for name, pattern in shapes.items() if pattern.search(window)}
    if "own job" in found:
        found.add("not the agent")
    spans = _zh_action_spans(window)
    for start, end in spans:
        # "付款前", "部署完", "上传后": the action names a time, the order is elsewhere.
        if window.startswith(_ZH_TIME_AFTER, end) and not window.startswith(_ZH_PLACES, end):
            found.add("condition")
            continue
        clause = _clause_start(window, start)
        before = window[clause:start]
        # Someone named before the action, at the clause's start: their habit, not an order.
        head = before.strip()
        named = any(head.startswith(w) for w in _ZH_SUBJECTS) or any(
            0 < head.find(t) <= 3 for t in _ZH_TITLES
        )
        # ... unless the agent is named after them: "他说你可以把…告诉我".
        told = max(_last_subject(head, w) for w in ("你", "助手", "助理"))
        if named and len(before) <= 20 and told < 0:
            found.add("not the agent")
        elif told >= 0:
            found.add("to the agent")
        # Someone who will, is in charge of or already does it: "cron 会把…", "小李负责…"
        # ("助手负责…" is the agent).
        marked = next((m for m in _ZH_DOER_MARKS if m in head), None)
        if marked is not None or head.endswith("会"):
            doer = head[: head.find(marked)] if marked else head[:-1]
            if doer.strip():
                agent = doer.rstrip().endswith(_ZH_AGENT_NAMES)
                found.add("to the agent" if agent else "not the agent")
        # A thing that happens by itself: "账单每月自动扣款" describes, "自动把…上传" orders.
        auto = head.rfind("自动")
        if auto > 0 and "把" not in head[auto:]:
            found.add("described")
        # An order starts with its verb or with 把, after a scope word at most.
        for scope in _ZH_SCOPE_WORDS:
            if head.startswith(scope):
                head = head[len(scope) :].lstrip("，, ")
                break
        head = head.lstrip("就先再都也顺手 ")
        if head == "" or head.startswith("把"):
            found.add("to the agent")
    return found, bool(spans)


@_once
def _chinese():
    """The Chinese parts' strings, and their few patterns (used only on text with Chinese)."""
    words = {
        name: tuple(x for alt in _split_top(pattern) for x in _expand(alt))
        for name, pattern in _ZH_WORDS.items()
    }
    shapes = {**_ZH_SHAPES, "own job": _ZH_OWN_JOB, "received": _ZH_RECEIVED, "runs": _ZH_RUNS}
    return words, {name: _compiled(p) for name, p in shapes.items()}
