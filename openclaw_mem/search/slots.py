"""The slots of search/currency.py: subjects a person holds one value of at a time (where
they live, their editor, manager, a launch date, ...), the words that name each in English
and Chinese, the patterns for what a plain word cannot tell, what names a property of a
slot's thing rather than the thing, and the words that find the patterns' statements in an
index. Data only: currency.py reads them.
"""

from __future__ import annotations

import re

from ..text import Lazy

_W = r"(?<![\w'’])"  # a word starts here (an apostrophe is inside a word: "don't")
_E = r"(?![\w'’])"

# A subject a person has one of at a time (or holds one value of), said in English and
# Chinese. Each slot: the words that name it. Matched on a case-folded text, whole words
# for English (with the usual endings), as substrings for Chinese.
# fmt: off
SLOTS: dict[str, tuple[str, ...]] = {
    "home": (
        "live", "lives", "living", "lived", "relocated", "based in",
        "relocate", "relocating", "apartment", "flat", "hometown", "home city", "address",
        "neighbourhood", "neighborhood", "movers", "moving boxes", "住在", "住的", "住到", "搬",
        "定居", "老家", "公寓", "家在", "我家", "住址",
    ),
    "job": (
        "job", "employer", "company", "work at", "work for", "works at", "working at",
        "working for", "hired", "joined", "position", "role at", "公司", "上班", "入职",
        "工作", "跳槽", "辞职", "离职",
    ),
    "manager": (
        "manager", "boss", "supervisor", "team lead", "tech lead", "report to", "reports to",
        "reporting to", "my lead", "runs our team", "runs the team", "took over the team",
        "经理", "领导", "老板", "上司", "主管", "带我的", "直属", "老大", "组长", "负责人",
    ),
    "editor": (
        "editor", "ide", "vim", "neovim", "nvim", "emacs", "vscode", "vs code",
        "visual studio code", "helix", "zed", "sublime", "pycharm", "intellij", "jetbrains",
        "cursor", "goland", "webstorm", "nano", "编辑器",
    ),
    "language": (
        "programming language", "main language", "python", "golang", "go code", "in go",
        "rust", "java", "javascript", "typescript", "kotlin", "swift", "ruby", "php",
        "elixir", "haskell", "scala", "c++", "c#", "clojure", "ocaml", "zig", "dart", "编程语言",
        "语言", "写后端", "后端",
    ),
    "indent": ("tabs", "tab", "spaces", "indentation", "indent", "缩进", "空格", "制表符"),
    "drink": (
        "coffee", "espresso", "latte", "cappuccino", "flat white", "americano", "mocha",
        "cortado", "caffeine", "decaf", "tea", "green tea", "black tea", "matcha", "chai",
        "milk", "oat milk", "sugar", "rooibos", "herbal tea", "咖啡", "茶", "奶茶", "牛奶", "美式",
        "拿铁",
    ),
    "diet": (
        "vegetarian", "vegan", "pescatarian", "plant-based", "meat", "diet", "keto", "gluten",
        "素食",
        "吃素", "吃肉", "饮食",
    ),
    "sweets": (
        "chocolate", "sweets", "candy", "dessert", "ice cream", "sugar-free", "sugar free",
        "甜食", "巧克力", "甜品", "冰淇淋", "蛋糕", "戒糖",
    ),
    "vehicle": (
        "car", "cars", "drive", "drives", "driving", "vehicle", "motorbike", "motorcycle",
        "scooter", "bikeless", "carless", "car-free", "tesla", "toyota", "honda", "mazda", "一辆",
        "大众", "丰田", "本田", "比亚迪", "特斯拉", "宝马", "奔驰", "奥迪",
        "volkswagen", "bmw", "audi", "volvo", "subaru", "nissan", "hyundai", "skoda", "yamaha",
        "ducati", "kawasaki", "harley", "vespa", "车", "开车", "汽车", "电动车", "摩托",
    ),
    "commute": (
        "commute", "commuting", "bike to work", "cycle to work", "通勤", "骑车上班", "坐地铁上班",
        "坐公交上班", "开车上班",
    ),
    "meeting": (
        "meeting", "meetings", "standup", "stand-up", "one-on-one", "1:1", "retro",
        "周会", "例会", "会议", "站会", "开会", "组会", "晨会", "早会", "复盘",
    ),
    "deadline": (
        "launch", "launches", "release", "release date", "ship date", "ships on", "ship on",
        "ships by", "deadline", "due date",
        "go-live", "go live", "cutover", "demo day", "due", "due on", "due by", "defense",
        "wedding", "appointment", "上线", "发布", "截止", "答辩", "婚礼",
        "交付", "发版",
    ),
    "exercise": (
        "gym", "workout", "work out", "exercise", "running", "jogging", "yoga",
        "pilates", "swimming", "swim", "climbing", "climb", "bouldering", "crossfit", "spin class",
        "calisthenics",
        "badminton", "tennis", "basketball", "football", "soccer", "volleyball", "ping pong",
        "table tennis", "golf", "cycling", "健身", "跑步", "游泳", "瑜伽", "锻炼", "健身房",
        "羽毛球", "网球", "篮球", "足球", "乒乓球", "跳绳", "骑行",
    ),
    "partner": (
        "partner", "girlfriend", "boyfriend", "wife", "husband", "spouse", "fiancé",
        "fiancée", "fiance", "fiancee", "dating", "女朋友", "男朋友", "老婆", "老公", "对象",
        "妻子", "丈夫", "seeing someone",
    ),
    "phone": ("phone", "iphone", "android", "pixel", "galaxy", "手机"),
    "computer": ("laptop", "macbook", "thinkpad", "desktop", "pc", "电脑", "笔记本"),
    "os": ("linux", "windows", "macos", "ubuntu", "fedora", "arch linux", "操作系统", "系统"),
    "theme": (
        "dark mode", "light mode", "dark theme", "light theme", "theme", "深色", "浅色", "主题",
    ),
    "shell": ("shell", "bash", "zsh", "fish shell", "terminal"),
    "browser": ("browser", "chrome", "firefox", "safari", "brave", "浏览器"),
    "smoking": ("smoke", "smoking", "cigarettes", "vape", "vaping", "抽烟", "吸烟"),
    "alcohol": (
        "drink alcohol", "alcohol", "beer", "wine", "drinking", "喝酒", "啤酒", "戒酒", "滴酒",
        "白酒", "红酒", "葡萄酒",
    ),
    "sleep": (
        "wake up", "bedtime", "go to bed", "sleep", "alarm", "night owl", "early bird",
        "lights out", "起床", "睡觉", "闹钟",
    ),
    "school": (
        "school", "university", "college", "major", "degree", "kindergarten", "preschool",
        "msc", "bsc", "phd", "mba", "masters", "bachelor's",
        "学校", "大学", "专业", "幼儿园", "小学", "初中", "高中", "年级",
    ),
    "salary": ("salary", "income", "earn", "earns", "wage", "工资", "薪水", "收入"),
    "name": (
        "my name", "call me", "calls me", "nickname", "go by", "goes by", "going by", "went by",
        "名字",
        "叫我", "称呼", "外号", "昵称",
    ),
    "email": ("email", "e-mail", "邮箱", "邮件地址"),
    "pet": (
        "dog", "cat", "pet", "puppy", "kitten", "hamster", "rabbit", "bunny", "parrot",
        "budgie", "goldfish", "tortoise", "turtle", "guinea pig", "狗", "猫", "宠物", "仓鼠",
        "兔子", "鹦鹉", "金鱼", "乌龟",
    ),
    "database": (
        "database", "postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb",
        "dynamodb", "tidb", "cockroachdb", "clickhouse", "数据库", "生产库",
    ),
    "framework": (
        "framework", "django", "flask", "fastapi", "rails", "spring boot", "react", "vue",
        "angular", "svelte", "next.js", "flutter", "react native", "swiftui", "框架",
    ),
    "ci": ("ci", "jenkins", "github actions", "gitlab ci", "circleci", "travis", "buildkite"),
    "doctor": ("doctor", "gp", "dentist", "physician", "therapist", "医生", "大夫", "牙医"),
    "landlord": ("landlord", "landlady", "房东"),
    "hosting": (
        "hosted", "hosting", "aws", "azure", "gcp", "google cloud", "heroku", "vercel",
        "netlify", "cloudflare", "github pages", "hetzner", "fly.io", "digitalocean", "linode",
        "render.com", "railway", "阿里云", "腾讯云", "华为云", "托管", "部署在",
    ),
    "repo_host": ("github", "gitlab", "bitbucket", "gitea", "repositories", "repository"),
    "chat": (
        "slack", "mattermost", "microsoft teams", "discord", "zulip", "飞书", "钉钉", "企业微信",
    ),
    "keyboard": ("keyboard", "mx keys", "键盘"),
    "monitor": ("monitor", "monitors", "display", "显示器"),
    "lesson": ("lesson", "lessons", "class", "classes", "课"),
    "workweek": (
        "days a week", "day week", "part-time", "part time", "full-time", "full time",
        "hours a week", "four-day week", "from home", "wfh", "on-site", "onsite", "remote",
        "hybrid", "工作日", "居家办公", "远程",
    ),
    "bundler": ("bundler", "webpack", "vite", "rollup", "esbuild", "parcel", "打包工具"),
    "iac": ("terraform", "pulumi", "ansible", "cloudformation", "infrastructure as code"),
    "teacher": ("teacher", "tutor", "coach", "instructor", "老师", "教练", "导师"),
    "plant": ("plant", "plants", "植物", "盆栽", "茉莉"),
    "team": ("squad", "小组"),
    "tracker": (
        "jira", "linear", "trello", "asana", "clickup", "youtrack", "github issues", "禅道",
        "tapd",
    ),
    "music": (
        "spotify", "apple music", "tidal", "deezer", "youtube music", "soundcloud", "网易云音乐",
        "qq音乐",
    ),
    "dose": ("dose", "dosage", "剂量"),
    "allergy": ("allergic", "allergy", "allergies", "过敏"),
    "title": ("my title", "job title", "promoted", "promotion", "职位", "职级", "升职", "头衔"),
    "plan": ("phone plan", "data plan", "mobile plan", "套餐"),
    "hobby": (
        "hobby", "calligraphy", "pottery", "painting", "photography", "knitting", "chess",
        "gardening", "爱好", "书法", "陶艺", "画画", "摄影", "钓鱼", "下棋",
    ),
    "travel": ("offsite", "trip", "vacation", "holiday", "旅行", "出差", "度假", "团建"),
    "reply_language": (
        "answer in", "reply in", "respond in", "in english", "in chinese", "用中文", "用英文",
        "用英语",
    ),
    "timezone": ("time zone", "timezone", "时区"),
    "testing": (
        "jest", "vitest", "pytest", "mocha", "jasmine", "cypress", "playwright", "junit",
        "rspec", "test framework", "测试框架",
    ),
    "tone": (
        "formal", "informal", "casual", "concise", "terse", "verbose", "jokey", "playful",
        "bullets", "paragraphs", "preamble",
        "short answers", "detailed answers", "bullet points", "正式", "简洁", "啰嗦",
    ),
}
# fmt: on

_MONTHS_DAYS = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|"
    r"may|june|july|august|september|october|november|december|next|the|a|an|my|our"
)
# Slots a plain word cannot tell: a move to a place (not "moved to Wednesday").
SLOT_PATTERNS: dict[str, str] = {
    # "I'm a backend developer at Klarwerk": a role at a named employer.
    "job": r"我在\S{1,12}?(?:做|当|上班|工作|实习)|"
    # (and the USER.md line made of it: "Is a backend developer at Klarwerk").
    r"(?:\bi(?:'m|’m|\s+am)|^\s*is)\s+(?:a|an|the)\s+(?:\S+\s+){0,3}?at\s+(?-i:[A-Z])|"
    r"\bfirst\s+day\s+at\b|\b(?:(?:day|week)\s+(?:\d+|one|two|three|four|five|six)|(?:first|second|"
    r"third|fourth|fifth|\d+(?:st|nd|rd|th))\s+(?:day|week|month))\s+at\s+(?-i:[A-Z])|"
    r"\bwork(?:s|ing)?\s+as\s+(?:a|an)\s+(?:\S+\s+){0,3}?at\s+(?-i:[A-Z])",
    "partner": r"\b(?:split|broke|breaking|splitting)\s+up\b|\bdivorced\b|\bseparated\b",
    # "on the search-relevance team", "transferred to the ingestion squad".
    "team": r"\bon\s+the\s+(?:[\w-]+\s+){0,3}?team\b|\b(?:joined|transferred\s+to|moved\s+to)\s+"
    r"the\s+(?:[\w-]+\s+){0,3}?team\b",
    "dose": r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|ml|iu)\b",
    "timezone": r"\butc\s?[+-]\s?\d|按\S{1,6}时间",
    "school": r"\b(?:year|grade)\s+\d{1,2}\b",
    # "组由周婧带": a team led by someone.
    # 向她汇报, 汇报给刘总: reporting to a person (not 向客户汇报, a report given to a client).
    "manager": r"[由归]\S{1,6}?(?:带|管|负责)|"
    r"向(?:她|他|[^\s，。,.;；！？]{0,3}(?:总|经理|老板|领导|主管|组长|老大))汇报|"
    r"汇报给(?:她|他|[^\s，。,.;；！？]{0,3}(?:总|经理|老板|领导|主管|组长|老大))",
    "exercise": r"\brun(?:s)?\s+(?:a\s+)?\d+\s?(?:k|km|miles?)\b",
    "commute": (
        r"\b(?:drive|drives|driving|cycle|cycling|bike|biking|walk|walking|ride|riding|"
        r"take\s+the\s+\w+|bus|train|tram|subway|metro)\s+to\s+(?:work|the\s+office)\b"
    ),
    "home": (
        # "Home for me is Galway" and the curated line made of it ("… for the user is …").
        r"\bhome\s+(?:for\s+(?:me|the\s+user|them)\s+)?is\b|\b(?:my|their)\s+home\s+is\b|"
        rf"{_W}(?:moved|moving|move)\s+(?:back\s+)?(?:from\s+\S+\s+)?to\s+"
        rf"(?!(?:{_MONTHS_DAYS})\b)(?-i:[A-Z])|{_W}moved\s+(?:out|house|away|in\s+with){_E}|"
        # a lease ("renting a studio above a bakery"), not a rented car
        r"\brent(?:s|ed|ing)?\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:place|flat|studio|room|apartment|house|home|loft|cottage)\b|"
        # "our new place", "my new flat": where one lives now.
        r"\b(?:our|my)\s+new\s+(?:place|flat|apartment|house|home)\b"
    ),
}

# What names a property of a slot's thing, not the thing: "my editor font is JetBrains Mono"
# says nothing of which editor.
SLOT_EXCLUDED: dict[str, Lazy] = {
    # "Nice job!" praises, and "joined a running club" is no employer: neither holds a job.
    "job": Lazy(
        r"\b(?:nice|good|great|awesome|amazing|excellent|fantastic|brilliant)\s+job\b|"
        r"\bjoin(?:ed|ing)?\s+(?:a|an|the|my|our)\s+(?:\S+\s+){0,3}?(?:group|club|gym|program|"
        r"programme|class|community|course|league|choir|band|meetup|workshop|team\s+chat)\b",
        re.I,
    ),
    "editor": Lazy(
        r"\b(?:editor|ide|vim|neovim|nvim|emacs|vs\s?code|helix|zed|sublime|jetbrains|cursor)"
        r"\s+(?:font|fonts|theme|themes|colou?r\s*scheme|plugins?|config|settings|"
        r"extensions?|keybindings?|mono)\b",
        re.I,
    ),
}

# Words of the slots' patterns, for finding their statements in an index (the pattern then
# decides): "I moved to Porto" holds no word of the `home` list.
SLOT_HINTS: dict[str, tuple[str, ...]] = {
    "home": ("moved", "moving", "move", "home", "renting", "rent"),
    "job": ("我在",),
    "commute": ("work", "office"),
    "team": ("team",),
}


# What a slot's own pattern (SLOT_PATTERNS) cannot match without: lower-case text each of its
# alternatives holds ("我在", " at " for "a developer at Klarwerk", "up" for "split up").
_PATTERN_NEEDLES: dict[str, tuple[str, ...]] = {
    "job": ("我在", "at"),
    "team": ("team",),
    "dose": ("mg", "mcg", "ml", "iu"),
    "manager": ("由", "归", "汇报"),
    "exercise": ("run",),
    "partner": ("up", "divorced", "separated"),
    "commute": ("work", "office"),
    "home": ("home", "mov", "rent", "new"),
    "timezone": ("utc", "按"),
    "school": ("year", "grade"),
}
