"""The words that say a change, for search/currency.py: strong ones that name the change
themselves ("switched to", "moved to", 改用, 搬到), weak ones that need the slot they are
said with ("now", "new", 现在, 新手机), the lead-ins that open a correction ("Actually,",
不对，), and how a sentence asks rather than says. Data and compiled patterns only.
"""

from __future__ import annotations

import re

from ..text import Lazy
from .slots import _E, _W

# "never quit", "won't quit", "don't stop": encouragement, not a change.
_NOT = r"(?<!never )(?<!n't )(?<!n’t )(?<!not )(?<!ever )(?<!won't )(?<!to )"

# Words of change that name the change themselves.
_STRONG_EN = (
    r"changed\s+my\s+mind|change\s+of\s+plans?|no\s+longer|not\s+any\s?more|"
    r"(?:don['’]t|doesn['’]t|do\s+not|does\s+not|can['’]t|won['’]t|isn['’]t|aren['’]t|not)\b.{0,40}?"
    r"\bany\s?more|no\s+more|no\s+(?:[\w-]+\s+){1,4}?any\s?more|"
    r"switch(?:ed|ing)?\s+(?:\S+\s+){0,3}?(?:to|from|over|back)|made\s+the\s+switch|"
    r"chang(?:ed|ing)\s+(?:\S+\s+){0,3}?to|"
    # "they've become like family", "became a part of": a likeness, not a change.
    r"bec(?:a|o)me(?!\s+(?:like|a\s+part|part|such|so|more|less|really|very|even)\b)|"
    r"turned\s+(?:vegan|vegetarian)|"
    r"mov(?:ed|ing)\s+(?:out|away|house|back)|"
    # "keep pushing forward" is encouragement, not a change.
    # "it pushed me to take the plunge" urges a person; nothing moved.
    r"(?<!keep )(?<!keeps )(?:mov|shift|(?:push|bump)(?!\w*\s+(?:me|us|him|her|them|you)\b))"
    r"(?:ed|ing)\s+(?:(?!and\b|but\b)\S+\s+){0,5}?(?:to|back|forward|out)|"
    r"relocat(?:ed|ing)|"
    rf"{_NOT}quit(?:ting)?|{_NOT}gave\s+up|{_NOT}giving\s+up|{_NOT}stopped(?!\s+by\b)|"
    rf"{_NOT}stop(?:ping)?\s+(?=\w+ing\b)|"
    r"cancel+(?:ed|ing)?|called\s+off|"
    r"sold|got\s+rid\s+of|ditched|"
    r"postponed|delayed|pushed\s+(?:back|out|to)|slipp(?:ed|ing)|rescheduled|"
    r"brought\s+(?:forward|up)|"
    r"replaced|instead\s+of|instead|used\s+to|"
    r"from\s+now\s+on|starting\s+(?:today|now|next)|"
    r"update\s*:|"
    r"left\s+(?:my|the|\w+['’]s)\s+(?:job|company|team|position|role)|left(?=\s+(?-i:[A-Z]))|"
    r"(?:new|another)\s+job|took\s+(?:a|the)\s+(?:job|position|role)|"
    r"broke\s+up|divorced|separated|retired|"
    r"(?:is|are|was|has\s+been|have\s+been)\s+(?:now\s+)?(?:moved|changed|pushed|shifted)|"
    r"dropped|swapped|traded\s+(?:in|up|for)|upgraded|downgraded|migrated|ported|transitioned|"
    r"went\s+back\s+to|going\s+back\s+to|on\s+second\s+thoughts?|"
    r"(?:was|got|were)\s+stolen|passed\s+away|died|gave\s+away|"
    r"(?:bought|got)\s+(?:a|an)\s+new|handed\s+over|"
    # Idioms and corrections of a helper's unseen cases (session 11), in general form.
    r"sli(?:d|ding)\s+(?:\S+\s+){0,3}?(?:to|back|out|into)|split\s+up|splitting\s+up|"
    r"scratch\s+that|flip\s+that|"
    r"as\s+of\s+(?:today|now|tomorrow|next\s+\w+|this\s+\w+|(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|january|february|march|april|may|june|july|august|september|"
    r"october|november|december)\b)|going\s+forward|"
    r"ripped\s+out|tore\s+out|scrapped|axed|killed(?!\s+it\b)|"
    r"(?:is|are|was|were)\s+(?:now\s+)?off(?!\s+(?:to|for|by|on|at|the|work|today|tomorrow)\b)|"
    r"brought\s+(?:\S+\s+){1,3}?forward|traded\s+(?:\S+\s+){1,3}?(?:in|for)|"
    r"let\s+(?!(?:me|us|him|her|them|you|it)\b)(?:\S+\s+){1,3}?go\b|"
    r"(?:gone|went|going)\s+off(?!\s+(?:to|on)\b)|(?:is|are)\s+gone|"
    # "Not Westbrook but Eastfield": a name corrected by another.
    r"not\s+(?-i:[A-Z])\S*(?:\s+\S+){0,2}?,?\s+but\s+(?-i:[A-Z])[\w'’-]*|"
    r"[a-z]+-free\s+(?:since|for\s+(?:\d+|a|an|one|two|three|four|five|six|several|a\s+few)\s+"
    r"(?:days?|weeks?|months?|years?))|"
    r"first\s+day\s+at|"
    # A new employer counted in days ("Day 3 at Quillmark"), a cut-over, a transfer.
    r"(?:(?:day|week)\s+(?:\d+|one|two|three|four|five|six)|(?:first|second|third|fourth|fifth|"
    r"\d+(?:st|nd|rd|th))\s+(?:day|week|month))\s+(?:at|in)\s+(?:(?:our|my|the)\s+new|"
    r"(?-i:[A-Z])[\w'’.-]*)|"
    r"cut\s+(?:\S+\s+){0,4}?over\s+to|transferred|"
    r"cut(?:ting)?\s+(?:out|down\s+on|back\s+on|caffeine|coffee|sugar|alcohol|meat|dairy|gluten)|"
    r"(?:we|i)\s+lost\s+(?-i:[A-Z])[\w'’-]*|officially\s+(?:my|our|in|at|a|an|the)|"
    r"start(?:ed)?\s+going\s+by|renamed|rebranded|outgr(?:ew|own)|"
    r"at\s+all\s+(?:these\s+days|now|nowadays|any\s?more)|ended\s+up\s+(?:\w+ing|with|on|in|at)|"
    r"got\s+(?:the\s+\w+|it|that|this|them)\s+wrong|i\s+was\s+wrong|told\s+you\s+wrong|"
    r"(?:went|gone|going)\s+(?:fully\s+)?(?:vegan|vegetarian|plant-based|keto|pescatarian)|"
    r"took\s+(?:\S+\s+){0,2}?out\s+of|took\s+over\s+(?:\S+\s+){0,3}?from|"
    r"(?:upp|rais|lower|increas|decreas|reduc)ed\s+(?:\S+\s+){0,3}?to\b|"
    # A change need not name itself: a cut-over is said by when it starts ("standup is at
    # 10:15 from this week"), but only where the clause ends ("notes from this week are in
    # the doc" date the notes); a price by where it goes, with its figure ("the kids went up
    # to their room" moved no value); a booking made again replaces the first.
    r"from\s+(?:this|next)\s+(?:week|month|year|quarter|term|semester|sprint|cycle|season)"
    r"(?=\s*(?:$|[,.;:!?]|(?:on|onwards?|because|since|as|so|and|but)\b))|"
    r"from\s+the\s+(?:first|1st|start|beginning)\s+of\s+(?:this|next)\s+\w+|"
    r"(?:go(?:es|ing)?|went|gone)\s+(?:up|down)\s+to(?=\s+[\d€$£¥])|"
    r"(?:rose|risen|rises|rising|fell|falls|falling|increases|increasing|decreases|decreasing)"
    r"\s+to(?=\s+[\d€$£¥])|re-?booked"
)
_STRONG_ZH = (
    r"不再|不(?:喝|吃|用|住|去|做|玩|开|抽|养|打|碰|写)\S{0,6}了|戒(?!指|备|严|律|心)|"
    r"改(?:喝|吃|骑|坐|开|穿|学|读)|已经回|常驻了|没(?:再)?(?:碰|玩|练|去|做|用)(?:过)?了|换\s*(?=[A-Za-z])|改用|改成|改为|改到|改在|改去|"
    r"换成|换了|换到|换用|搬到|搬去|搬家|搬回|取消|卖了|卖掉|戒了|戒掉|推迟|延期|延后|"
    r"提前到|辞职|离职|跳槽|入职|不对|更正|其实|以前(?=是|在|住|用|喜欢|常|经常|总|一直)|已经不|不用了|没再|从今天起|从现在起|"
    r"从下周起|分手|离婚|退休|迁到|迁移|迁去|调到|调去|调整到|挪到|改期|转到|转用|转岗|升级到|"
    r"升级成|放弃|去世|死了|冻死|丢了|被偷|不干了|退出了|停了|改叫|改名|不养了|"
    r"说错了|搞错了|记错了|口误|搬完家|搬了家|滴酒不沾|戒酒|戒烟|戒糖|"
    r"从(?:这|本|下)(?:周|个?月|学期)(?:起|开始)(?!的)|(?:下|这)(?:周|个月)(?:起|开始)(?!的)|涨到|降到|"
    r"不是[^，,。；;]{1,8}[，,]\s*(?:而)?是|switch(?:ed)?\s*(?:到|成)"
)
_WEAK_EN = (
    r"now|currently|these\s+days|new|nowadays|lately|anymore|since\s+(?:last|then|(?:january|"
    r"february|march|april|may|june|july|august|september|october|november|december)\b)"
)
# 新 before the thing it renews, as "new" is weak in English (新手机, 新公司, 新老板); not 新闻
# or 新鲜, nor someone else's (孩子的新手机; 我的新手机 is the writer's).
_WEAK_ZH = (
    r"现在|目前|如今|新的|以后|(?:(?<!的)|(?<=我的)|(?<=我们的))新(?=手机|公司|工作|单位|家|房子|住处|老板|领导|上司|经理|电脑|"
    r"笔记本|车|团队|部门|学校|号码|邮箱|地址|医生|教练|老师|男朋友|女朋友|对象|编辑器|框架)"
)

STRONG_RE = Lazy(rf"{_W}(?:{_STRONG_EN}){_E}|{_STRONG_ZH}", re.I)
WEAK_RE = Lazy(rf"{_W}(?:{_WEAK_EN}){_E}|{_WEAK_ZH}", re.I)
# A correction opens its clause: "Actually, I use Helix", not "it's actually fun".
LEAD_RE = Lazy(
    r"^\s*(?:(?:oh|no|wait|sorry|hmm|well)[\s,!]+)*(?:actually|correction|to\s+correct|"
    # "Turns out, …" and "I meant …" correct at a clause's start only: "let me know how it
    # turns out", "I meant to call".
    r"update|on\s+second\s+thoughts?|i\s+meant(?!\s+to\b)|scratch\s+that|flip\s+that|"
    r"turns\s+out|turned\s+out|my\s+bad|going\s+forward)\b|^\s*(?:不对|更正|纠正|其实|说错了|记错了|搞错了)",
    re.I,
)
# A question, said with its mark or without: 吗, and the A-not-A forms (要不要, 能不能, 有没有).
QUESTION_RE = Lazy(r"[?？]\s*$|吗[。.!！]?\s*$|([\u4e00-\u9fff])[不没]\1")

# How a clause asks: "Is …", "how do I …", 怎么, 什么.
ASKING_RE = Lazy(
    r"^\W*(?:is|are|am|was|were|do|does|did|can|could|should|would|will|shall|have|has|"
    r"what|how|why|when|where|which|who|whom|whose|any|anyone|isn['’]t|aren['’]t|don['’]t)\b"
    r"|吗|呢|什么|怎么|怎样|哪|谁|为什么|是否|要不要|能不能|有没有",
    re.I,
)
