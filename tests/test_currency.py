"""What is true now (issue 39): a later update supersedes what it replaces in recall and in
the brief, and a forget hides every place that says what was forgotten. The workspaces are
built as an agent builds them: `mem log --at` over several days, then `mem recall` and
`mem context` with the clock after the last of them."""

from __future__ import annotations

import json
import re

import pytest

from openclaw_mem.search import currency as cur
from openclaw_mem.search.currency import supersedes

NOW = "2026-11-28T09:00"

UPDATES = [
    ("I live in Lisbon.", "I moved to Porto last week."),
    (
        "I prefer tabs over spaces in Go code.",
        "Changed my mind: spaces everywhere now, no more tabs.",
    ),
    ("我住在杭州", "我搬到深圳了，不再住在杭州。"),
    ("我用 vim 写代码", "不对，我现在改用 Neovim 了"),
    ("I use vim for everything", "Actually, I switched from vim to Helix."),
    ("My manager is Chen Wei.", "My new manager is Priya, Chen moved teams."),
    ("The launch is on March 3.", "The launch slipped to April 10."),
    ("I drink two coffees every morning.", "I quit coffee last month, only tea now."),
    ("我主要用Python写后端", "我现在改用Go写后端了"),
    ("周会在每周二下午三点", "周会改到周三了"),
    ("I drive a Honda Civic.", "Sold the Civic last week, I cycle to work now."),
    ("I go to the gym every Monday.", "I cancelled my gym membership."),
    # Words of change beyond the first lexicon, and slots said without their usual verb.
    ("Our code lives on Bitbucket.", "We migrated the repositories to GitHub."),
    ("The API runs on AWS.", "We moved hosting from AWS to Hetzner... no, to Azure."),
    ("服务部署在华为云上。", "服务已经迁到阿里云了。"),
    ("组会在每周一上午。", "组会调到周五下午了。"),
    ("Home for me is Utrecht.", "We moved house to Delft in the spring."),
    ("I cycle to work.", "My bike got stolen, I take the tram to work now."),
    ("The team uses Discord for chat.", "We dropped Discord, everyone is on Slack now."),
    ("I use tabs in Python.", "On second thought, spaces in Python from now on."),
    # A relation that is a slot of the user's changes that slot; a team's change is shared.
    ("My manager is Chen Wei.", "My manager is now Daniel."),
    ("The standup is at 9:30.", "They moved the standup to 10:00."),
    # A capital is no person, and "if" or "I'd" after the change supposes nothing.
    ("My editor is VS Code.", "Neovim replaced VS Code as my editor."),
    ("I live in Hamburg.", "User moved to Berlin."),
    ("I live in Hamburg.", "I moved to Berlin, if you remember."),
    ("I use tabs.", "Changed my mind: I'd rather use spaces."),
    # A negation that ends what it names, however it is contracted.
    ("I'm vegetarian.", "I'm not vegetarian anymore, I eat chicken now"),
    ("I work at Siemens as a QA engineer.", "I'm no longer at Siemens, I joined SAP last month"),
    ("I love hiking in the Alps", "Changed my mind: I don't like hiking anymore, I prefer cycling"),
    ("Loves hiking in the Alps", "User doesn't like hiking anymore, the user prefers cycling"),
    # "used to" ends what it says itself; a relation's slot changes by a statement naming them.
    ("I live in Shanghai.", "I used to live in Shanghai, for 5 years."),
    ("My manager Tom lives in Munich.", "Tom moved to London."),
    ("My sister lives with me in Hamburg.", "I moved to Berlin."),
    ("同事们都叫我 Max。", "现在大家改叫我 Mo 了，Max 不用了。"),
    ("I prefer pnpm over npm.", "Changed my mind: I'm using bun instead of pnpm."),
    # "gave up" and "can't take it" are how the change is said, not what it is about.
    (
        "I play in a five-a-side football team every Tuesday.",
        "I gave up the Tuesday football, my ankle can't take it anymore.",
    ),
    ("Version 3.0 of the app ships on September 30.", "The 3.0 release slipped to October 28."),
    # The curated line the offline rules make of "Home for me is Galway".
    ("Home for the user is Galway", "We finally moved house to Cork."),
    # An audit's unseen phrasings (session 11), in other words: idioms and corrections.
    ("The migration cutover is on May 4.", "The cutover slid to May 18."),
    ("The contract ends in June.", "Turns out the contract ends in September, I misread it."),
    ("My flight lands at 9.", "Sorry, I meant my flight lands at 11."),
    (
        "I'll use Postgres for the side project.",
        "Scratch that, SQLite is enough for the side project.",
    ),
    ("I work from home three days a week.", "As of next week, I'm fully remote."),
    ("My dentist is Dr. Alvarez.", "Not Alvarez but Morales, that's my dentist."),
    ("我儿子上小学二年级。", "说错了，我儿子是三年级，不是二年级。"),
    ("我们用 Jenkins 做 CI。", "CI 已经 switch 到 GitHub Actions 了。"),
    ("We drive a 2018 Mazda 3.", "Traded the Mazda in for a Kia last week."),
    ("I love kombucha.", "I've gone off kombucha, too sweet."),
    (
        "We have a planning meeting every Monday at 10.",
        "The Monday planning meeting is gone, we plan in the tracker now.",
    ),
    ("My girlfriend is Mara.", "Mara and I split up last month."),
    ("I'm a data engineer at Norwind.", "First day at Tessel today, new badge and everything."),
    ("Is a data engineer at Norwind", "First day at Tessel today, new badge and everything."),
    # A message that says its change and then asks for something still says it.
    ("I live in Lisbon.", "I moved to Porto last week. Can you update my address?"),
    # A home named by its lease and a move by its movers; a vehicle by its make; sweets.
    (
        "I'm in Ghent for now, renting a studio above a bakery.",
        "The movers came on Tuesday so I'm officially in Leuven now.",
    ),
    ("I ride a Ducati on Sundays.", "Finally let the Ducati go to a colleague from Bruges."),
    ("I eat a bowl of ice cream every evening.", "I've been sugar-free since March."),
    ("We have a hamster called Nibbles.", "Nibbles passed away in the spring."),
    ("我养了一只叫豆豆的兔子。", "豆豆上周去世了，家里现在没有宠物了。"),
    # One clause of the change holds what changed, the rest says what comes instead.
    (
        "For code review I like stacked PRs, one change per PR.",
        "I've gone off stacked PRs. From now on open one PR per feature with a short summary.",
    ),
    (
        "My son is allergic to strawberries.",
        "Correction, it's kiwi and mango he's allergic to, strawberries are fine.",
    ),
    # A new employer counted in weeks; a cut-over; cutting out; a nickname; a dose raised.
    ("I work as a QA analyst at Brightline.", "Week 2 at Harbor Robotics, still learning."),
    ("Our services run on AWS.", "We finally cut everything over to Azure last month."),
    ("I have two espressos every morning.", "My cardiologist made me cut out caffeine."),
    ("Friends call me Jojo.", "I've started going by Johanna with everyone."),
    ("I take 50mg of sertraline daily.", "The psychiatrist increased my dose to 100mg."),
    ("We have a rabbit called Clover.", "Sadly we lost Clover in June, and the kids sleep badly."),
    # Mixed and Chinese: a tool glued to Chinese, a sport given up, a correction's frame.
    ("我们组用Trello管理需求。", "Trello不好用，上周全部迁到Jira了。"),
    ("我每周踢两次足球。", "足球放弃了，膝盖不行，现在改骑行。"),
    ("我开的是一辆红色的丰田卡罗拉。", "更正一下，之前记错了，我的车是蓝色的本田思域。"),
    # Session 12's second widening: ordinals, renames, outgrowing, "ended up", a product
    # name with a dot, a correction of a wrong day, a weak change of a test framework.
    ("I'm a site engineer at Dunmore Civil.", "Second week at Pellam Group, the site is huge."),
    ("I'm on the Osprey team, we own search.", "Our squad got renamed to Discovery last week."),
    (
        "My daughter Ada is allergic to eggs.",
        "Ada outgrew the egg allergy, but she reacts to kiwi now.",
    ),
    ("Our blog is hosted on Netlify.", "We ended up moving the blog to Render.com in May."),
    ("Standup is every Monday at 9.", "Oops, I got the day wrong: standup is every Tuesday at 9."),
    ("Our unit tests use Mocha.", "the backend tests are all Vitest now"),
    ("I drink two lattes a day.", "I don't drink coffee at all these days, only water."),
    ("我的牙医是华西口腔的唐医生。", "唐医生退休了，牙医换成了同一家的吴医生。"),
    ("我们线上用 MySQL。", "上个月迁移完了，线上现在跑在 TiDB 上。"),
    # A colon frames the rest of its sentence as the change.
    ("I usually go to bed around 1 am.", "New puppy, new schedule: bedtime at 10 most nights."),
    # Session 14: a change said by its first half ("… and bought a bike"), a cut-over said
    # by when it starts, a value that goes up, a change whose slot is named in its sentence
    # or in the short one announcing it, 新 before what it renews, a change stated before
    # the question that follows it.
    ("I drive a 2012 Volvo V70 estate.", "Sold the old estate last week and bought a bike."),
    ("Our retro is at 4pm on Fridays.", "Retro is at 2pm from next week."),
    ("The gym fee is 40 euros a month.", "The gym fee goes up to 45 euros in January."),
    ("我的手机是华为P40。", "新手机到了！换成了小米14，拍照好多了。"),
    ("My laptop is a Dell XPS 13.", "the new MacBook keeps waking up, how do I stop that?"),
    ("我在字节上班。", "来新公司第一周，同事都很好。"),
    ("I take two sugars in my tea.", "No sugar in my tea anymore, doctor's orders."),
    ("The gym fee is 40 euros a month.", "The gym fee rose to 45 euros."),
    ("My rent is 1200 a month.", "Rent is increasing to 1300 next month."),
    ("房租是每月3000元。", "房租涨到3500了。"),
    ("Our design sync is on Mondays.", "Moved the weekly sync with design to Thursdays."),
    ("我的领导是王芳。", "以后我直接向李总汇报。"),
    ("我的领导是王芳。", "调岗了，现在工作汇报给刘总。"),
]
NOT_UPDATES = [
    ("I love hiking in the Alps.", "I now go hiking every Sunday."),  # a habit, not a change
    ("I love hiking in the Alps.", "I went hiking yesterday, it was great."),
    ("I live in Lisbon.", "Did you move to Porto?"),  # a question states nothing
    ("I'm gonna keep going with my business.", "Thanks! I won't quit, I never give up."),
    ("It gives me the motivation to keep pushing forward.", "I'm gonna keep pushing forward."),
    ("It's always fun experimenting in the kitchen.", "No, not really. It's actually kind of fun."),
    (
        "Atlas 的 reconciliation worker 报 Redis 连接超时",
        "Actually, the worker deadline moved to December 15.",
    ),
    ("记住我喜欢喝茶", "我搬到深圳了"),
    ("Work was rough this week.", "My car broke down on the way to work."),  # not a change
    ("I love my cat Miso.", "I'm going to work on the garden this weekend."),
    # Someone else's change is theirs, and a supposed or planned one is none yet.
    ("I live in Hangzhou.", "My friend Tom moved to Shenzhen last week."),
    ("I live in Hangzhou.", "My friend moved to Shenzhen."),
    ("I live in Hangzhou.", "Tom moved to Shenzhen last week."),
    ("I live in Hangzhou.", "My boss Dana just moved to Singapore."),
    ("I use vim for everything.", "She switched to Emacs last year."),
    ("我住在杭州。", "我朋友上周搬到深圳了。"),
    ("I live in Hangzhou.", "If I moved to Shenzhen, I'd be closer to my parents."),
    ("I live in Hangzhou.", "I'm thinking about moving to Shenzhen."),
    ("我住在杭州。", "我打算明年搬到深圳。"),
    ("我住在杭州。", "我要不要搬到深圳？"),
    ("I live in Hamburg.", "Actually, Tom moved to Berlin."),
    ("I live in Hamburg.", "Actually Tom moved to Berlin."),
    ("我住在杭州。", "其实我朋友搬到深圳了。"),
    # The past said as past ends nothing that holds now; someone else's home is theirs; a
    # property of the editor is no editor.
    ("We moved to Hamburg in October.", "I used to live in Shanghai for 5 years."),
    ("My manager Tom lives in Munich.", "Actually we moved to Hamburg in October."),
    ("My sister lives in Hamburg.", "I moved to Berlin."),
    ("Their best friend Kenji lives in Osaka.", "Moved to Lisbon last month."),
    ("我妹妹住在杭州。", "我搬到深圳了。"),
    ("My favourite editor font is JetBrains Mono.", "Actually I switched from neovim to Helix."),
    # Someone else's words, pasted: not the writer's change.
    ("I live in Leeds.", "Here's the email from Bob:\nHi team, I'm moving to Denver next month."),
    ("I live in Leeds.", "> I moved to Denver last week\nthat's what the ticket says"),
    # A past told as a story, advice, a report, a negated future, a hedge (a helper's set).
    ("I live in Lyon.", "When I was a student I moved to Paris for two years."),
    ("I live in Toronto.", "Back in 2015 I moved to Vancouver for a year, then came back."),
    ("I work at Lumen Health.", "Fun fact: in 2018 I quit a job after one week, the commute."),
    ("My favourite editor is Helix.", "My coworker says I should switch to Zed."),
    ("我住在西安。", "我上大学的时候搬到过北京。"),
    ("我在阿里上班。", "我不会从阿里离职的。"),
    ("I live in Madrid.", "I'll be moving to Lisbon next year maybe."),
    # Idioms that read like changes and are none.
    ("I love baking bread.", "Let me know how it turns out!"),
    ("My family means the world to me.", "They've become like family to me."),
    ("Nice job on the release!", "I just joined a new running club."),
    ("I call my mom every Sunday.", "I meant to call my mom yesterday but forgot."),
    ("The demo is on Friday.", "Did the demo slide to next week?"),
    # A rented car is no home; a time's colon frames nothing.
    ("I live in Aarhus.", "I rented a car for the trip, I'm in Odense now for the day."),
    ("The standup is at 9:30.", "I moved my gym session to 7:15: before work, much nicer."),
    # A recruiter's offer, an upsell refused, a migration advised and declined.
    ("My manager is Ola Berg.", "A recruiter wrote: 'your new manager would be Ines Roth.' No."),
    ("My phone is a Pixel 7.", "The shop tried to sell me a new iPhone; I left with a case."),
    ("我们项目用 PostgreSQL。", "架构组建议我们迁到 MongoDB，评估后决定不换。"),
    # Someone else's dose; a lost number; a tool named in passing.
    ("My dose of vitamin D is 1000 IU.", "My sister increased her dose to 2000 IU."),
    ("I take the 8:05 bus.", "I lost Tom's number, can you remind me?"),
    ("We track work in Jira.", "I read a paper on linear regression now."),
    # A change's slot is not one a later sentence names in passing; a question that opens
    # asking asks its change; a later half of a clause is no change's own words.
    ("I live in Lisbon.", "Sold my old bike yesterday. My flat is so cold this week."),
    ("我的手机是小米13。", "戒烟了！手机屏幕碎了。"),
    ("My editor is Vim.", "Cancelled Netflix. I use Vim all day anyway."),
    ("I work at Acme.", "Should I switch teams, or stay where I am?"),
    ("I live in Lisbon.", "Is the new flat near the river, or was that the old one?"),
    ("I take the 8:05 bus.", "I was tired and became grumpy on the bus."),
    ("我每天喝咖啡。", "新闻说咖啡涨价了。"),
    ("I live in Lisbon.", "My new neighbour moved to Porto, how do I send her a gift?"),
    ("I live in Lisbon.", "No sushi anymore for me, the place closed."),
    ("I go to yoga on Tuesdays.", "I moved the couch in the living room to the window."),
    ("我的领导是王芳。", "明天要向客户汇报方案。"),
    # A review's probes of the rules above: someone else's change beside the writer's
    # unchanged slot, a choice or the listener's asked, a motion with no figure, a date of
    # notes, someone else's 新, a product's "user", an evaluation.
    ("I live in Lisbon.", "My friend moved away, I still live in Lisbon."),
    ("我住在杭州。", "朋友搬到上海了，我在杭州好孤单。"),
    ("I work at Acme.", "Tom quit his job at Acme, I'm so sad."),
    ("My editor is Vim.", "Love Vim. Sold my bike."),
    ("我住在杭州。", "我还住在杭州，不过戒烟了。"),
    ("My phone is a Pixel 7.", "Between the new iPhone and the Pixel 9, which should I buy?"),
    ("My phone is a Pixel 7.", "Your new phone, is it an iPhone?"),
    ("我住在杭州。", "搬到上海的话，房租多少？"),
    ("我住在杭州。", "听说你搬到上海了，是真的吗？"),
    ("I walk my dog by the river every morning.", "I went down to the river with my dog."),
    ("Our standup is at 9:30.", "Standup notes from this week are in the doc."),
    ("我们的周会在周一。", "这周开始的项目周会上讨论。"),
    ("我的手机是华为P40。", "孩子的新手机是苹果的。"),
    ("我们用React。", "我们在评估新框架。"),
    ("My manager is Joanna.", "I'm running the team offsite now."),
    ("我的领导是王芳。", "现在每周向客户汇报进度。"),
    ("我的领导是王芳。", "下周开始把周报汇报给产品组。"),
    (
        "User clicks Save and the editor closes without asking to keep the draft.",
        "I switched to Neovim last week.",
    ),
    ("用户反馈新版本的深色主题在手机上看不清楚。", "我换成浅色主题了。"),
    # Someone pushed to act: nothing moved.
    (
        "I won't give up! I'll keep pushing to make my dreams happen.",
        "Losing my job pushed me to take the plunge and go for my dreams.",
    ),
]


@pytest.mark.parametrize(("old", "new"), UPDATES)
def test_an_update_supersedes_what_it_replaces(old, new):
    assert supersedes(old, new)
    if not cur.read_statement(old).restated:
        # Said in the other order, only a value said again would make the first a change.
        assert not supersedes(new, old)


# A fact said again with another value, and no word of change: the later one is true now.
RESTATEMENTS = [
    ("I live in Lisbon.", "I live in Porto."),
    ("My manager is Dorit Kallas.", "My manager is Ansel Whitcombe."),
    ("I live in Lisbon.", "I've been living in Helix since the licence renewal got denied."),
    ("我住在杭州", "我住在深圳"),
    ("我的老板是李娜。", "我的老板是王磊，人挺好。"),
    ("I work at Quillmark.", "I work at Brisket & Vane. Can you help with the onboarding doc?"),
    ("I drive a Honda Civic.", "I drive a Tesla these days."),
    ("My girlfriend is Anna.", "My girlfriend Mia and I just got a cat."),
    ("My manager is Dorit.", "My manager is Dr. Ansel Levi."),
    ("I'm based in Berlin.", "I'm based in Munich."),
]
# What names the same slot and is no other value of it now.
NOT_RESTATEMENTS = [
    ("I live in Lisbon.", "I lived in Berlin for two years."),  # the past
    ("I live in Lisbon.", "My sister lives in Porto."),  # someone else's
    ("I live in Lisbon.", "My friend Tom lives in Porto."),
    ("I live in Lisbon.", "If I lived in Porto I would surf every day."),  # supposed
    ("I live in Lisbon.", "Do I live in Porto?"),  # asked
    ("I live in Lisbon.", "Porto was lovely, back home now."),  # no value said of the slot
    ("我住在杭州西湖边", "我还住在杭州"),  # the same value
    ("I work at Quillmark.", "I work at Quillmark, on the Atlas team."),
    ("My manager is Dorit.", "I told my manager Dorit about Ansel."),
    ("My partner is Anna.", "I had dinner with my partner, Mia joined later."),  # another clause
    ("I live in Lisbon.", "Losing my flat in Lisbon was hard."),  # a capital that starts it
    ("I write Python at work.", "I write TypeScript for the frontend."),  # a language: many
    # A review's probes: a capital in the slot's clause that is no value of it, a denial, a
    # wish, the future, someone else's, a title, a possessive, Chinese without its form.
    ("My wife is Anna.", "My wife loves Paris."),
    ("My wife is Anna.", "I bought my wife a Kindle."),
    ("I drive a Tesla.", "I drive to Berlin every Monday."),
    ("My phone is a Pixel 8.", "My phone runs Android 15."),
    ("My name is Anna.", "Call me when Bob arrives."),
    ("I live in Lisbon.", "I don't live in Porto."),
    ("I live in Lisbon.", "I will live in Porto next year."),
    ("I live in Lisbon.", "I want to live in Porto someday."),
    ("I live in Lisbon.", "I live near Porto."),
    ("I live in Lisbon.", "My parents live in Porto and I visit them."),
    ("My boss is Tom.", "My boss's boss is Karen."),
    ("My boss is Tom.", "My boss reports to Karen."),
    ("My manager is Tom.", "I'm a manager at Acme."),
    ("My manager is Dorit.", "My manager is Dr. Dorit Levi."),
    ("I work at Google.", "I work at Google's Zurich office."),
    ("I work at Google.", "My job is great, Karen is a good boss."),
    ("My manager is Dorit.", "I told my manager about Bob. New sprint starts Monday."),
    ("我的老板是张伟。", "我的老板今天很生气。"),
    ("我的车是特斯拉。", "我的车停在楼下。"),
    ("我住在杭州。", "我住在公司附近。"),
    ("我住在杭州。", "我想住在深圳。"),
    ("我住在杭州。", "我老家在湖南。"),
    ("我住在杭州。", "我妈住在深圳。"),
]


@pytest.mark.parametrize(("old", "new"), RESTATEMENTS)
def test_a_fact_said_again_with_another_value_supersedes_the_first(old, new):
    assert supersedes(old, new)


@pytest.mark.parametrize(("old", "new"), NOT_RESTATEMENTS)
def test_a_slot_named_again_without_another_value_of_the_users_supersedes_nothing(old, new):
    assert not supersedes(old, new)


@pytest.mark.parametrize(("old", "new"), NOT_UPDATES)
def test_what_is_not_an_update_supersedes_nothing(old, new):
    assert not supersedes(old, new)


def _log(ws, *said):
    for when, role, text in said:
        ws("log", "--at", when, "--role", role, text)


FILLER = [
    ("2026-10-20T10:00", "user", "整理了一下桌面上的文件。"),
    ("2026-11-26T10:00", "user", "Watched a documentary about octopuses tonight."),
    ("2026-11-27T11:00", "assistant", "Octopuses are remarkable animals."),
]


def test_a_friends_move_a_question_or_a_plan_leaves_the_users_home_as_it_was(ws):
    """ "My friend Tom moved to Shenzhen" struck the user's "Lives in Hangzhou" and labelled
    the entry superseded; 我要不要搬到深圳？ became the line "要不要搬到深圳" in its place."""
    _log(ws, ("2026-11-01T09:00", "user", "I live in Hangzhou."))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-01T10:00")
    home = [x for x in _live(ws) if "Hangzhou" in x]
    assert home, _live(ws)
    _log(
        ws,
        ("2026-11-10T20:00", "user", "My friend Tom moved to Shenzhen last week."),
        ("2026-11-10T20:05", "user", "我要不要搬到深圳？"),
        ("2026-11-10T20:10", "user", "If I moved to Shenzhen, I'd be closer to my parents."),
        ("2026-11-10T20:15", "user", "我打算明年搬到深圳。"),
    )
    hits = ws.json("recall", "where do I live", "--now", "2026-11-11T09:00")["results"]
    assert not any(h.get("supersededBy") for h in hits), hits
    ws("consolidate", "--provider", "offline", "--now", "2026-11-10T21:00")
    live = _live(ws)
    assert [x for x in live if "Hangzhou" in x] == home, live  # still live, as it was
    assert not any("要不要" in x for x in live), live  # a question is no fact


def test_changed_my_mind_updates_the_curated_preference_offline(ws):
    """The README's own example: the offline rules held "Spaces, not tabs" as someone
    else's ("E1 says this of spaces, not of the user"), and the profile kept the tabs; its
    history read "The user spaces, not tabs"."""
    _log(ws, ("2026-11-01T09:00", "user", "I prefer tabs over spaces."))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-01T10:00")
    assert any("tabs over spaces" in x for x in _live(ws)), _live(ws)
    _log(ws, ("2026-11-10T09:00", "user", "Changed my mind: spaces, not tabs."))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-10T10:00")
    live = _live(ws)
    assert not any("tabs over spaces" in x for x in live), live
    assert any(x.startswith("- Spaces, not tabs") for x in live), live
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "The user spaces" not in history, history


def test_corrections_said_with_no_longer_or_not_anymore_strike_the_curated_lines(ws):
    """ "I'm not vegetarian anymore" and "I'm no longer at Siemens" were written beside
    "Is vegetarian" and "Works at Siemens", which stayed live in USER.md and in the brief:
    "'m not … anymore" was no word of change, and "no" and "m" counted as what changed."""
    _log(
        ws,
        ("2026-11-06T09:00", "user", "I'm vegetarian."),
        ("2026-11-06T09:01", "user", "I work at Siemens as a QA engineer."),
    )
    ws("consolidate", "--provider", "offline", "--now", "2026-11-06T10:00")
    _log(
        ws,
        ("2026-11-07T09:00", "user", "I'm not vegetarian anymore, I eat chicken now"),
        ("2026-11-07T09:01", "user", "I'm no longer at Siemens, I joined SAP last month"),
    )
    now = "2026-11-07T09:30"
    current = ws.json("recall", "where do I work", "--current", "--now", now)["results"]
    assert not any("work at Siemens" in h["snippet"] for h in current), current
    ws("consolidate", "--provider", "offline", "--now", "2026-11-07T10:00")
    live = _live(ws)
    assert not any(x.startswith("- Is vegetarian") for x in live), live
    assert not any("Works at Siemens" in x for x in live), live


def test_an_update_that_cannot_stand_as_a_line_still_strikes_the_line_it_replaces(ws):
    """ "新公司在苏州，第一天我就迷路了。" still says 我 once rewritten, so the offline rules
    wrote nothing of it, and "在南京工作，住在鼓楼区" stayed live in USER.md and in every brief
    after the consolidation that read the move."""
    _log(ws, ("2026-10-01T09:00", "user", "我在南京工作，住在鼓楼区。"))
    ws("consolidate", "--provider", "offline", "--now", "2026-10-01T10:00")
    assert any("在南京工作" in x for x in _live(ws)), _live(ws)
    _log(ws, ("2026-11-10T20:00", "user", "新公司在苏州，第一天我就迷路了。"))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-11T09:00")
    assert not any("在南京工作" in x for x in _live(ws)), _live(ws)
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "~~在南京工作，住在鼓楼区~~ (deprecated 2026-11-10)" in user, user
    brief = ws("context", "我在哪个城市工作", "--now", "2026-11-11T10:00").stdout
    assert "南京" not in brief and "苏州" in brief, brief


def test_the_history_paragraph_never_retells_a_line_its_own_batch_struck(ws):
    """One batch took "Is vegetarian …" and struck it for "I went fully vegan", and its
    paragraph, stamped with the batch's last entry, still said "The user is vegetarian":
    recall put that paragraph first, above the update, as the latest word."""
    _log(
        ws,
        ("2026-11-01T09:00", "user", "I'm vegetarian, so eggs are fine but no meat."),
        ("2026-11-20T09:00", "user", "Grocery list please, and note I went fully vegan in May."),
        ("2026-11-21T09:00", "user", "ok thanks"),
    )
    ws("consolidate", "--provider", "offline", "--now", "2026-11-22T10:00")
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "~~Is vegetarian" in user, user
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "vegetarian" not in history, history


def test_a_curated_line_is_superseded_by_a_later_entry_before_the_next_consolidation(ws):
    """ "- Lives in Hangzhou [2026-11-01](memory/…)" was never superseded: its source link
    made it too long to hold its fact, so `--current` still returned it and the brief's
    profile still said it after "I moved to Shenzhen last week"."""
    _log(ws, ("2026-11-01T09:00", "user", "I live in Hangzhou."))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-01T10:00")
    _log(ws, ("2026-11-10T20:00", "user", "I moved to Shenzhen last week."))
    now = "2026-11-11T09:00"
    hits = ws.json("recall", "where do I live", "--now", now)["results"]
    line = next(h for h in hits if h["path"] == "USER.md")
    assert line["supersededBy"].startswith("memory/2026-11-10.md"), line
    current = ws.json("recall", "where do I live", "--current", "--now", now)["results"]
    assert [h["path"] for h in current] == ["memory/2026-11-10.md"], current
    brief = ws("context", "where do I live", "--now", now).stdout
    assert "Hangzhou" not in brief and "Shenzhen" in brief, brief


def test_a_short_chinese_move_supersedes_in_recall_and_in_the_profile(ws):
    """ "我搬到深圳了。" shares no word with "我住在杭州。" but the slot's own 搬: recall never
    nominated it, and the offline rules found it too short to stand as a line (five
    characters, against eight letters)."""
    _log(ws, ("2026-11-01T09:00", "user", "我住在杭州。"))
    ws("consolidate", "--provider", "offline", "--now", "2026-11-01T10:00")
    _log(ws, ("2026-11-10T20:00", "user", "我搬到深圳了。"))
    hits = ws.json("recall", "我住在哪", "--now", "2026-11-11T09:00")["results"]
    assert hits[0]["path"] == "memory/2026-11-10.md", hits
    assert all(h.get("supersededBy") for h in hits[1:] if "杭州" in h["snippet"]), hits
    ws("consolidate", "--provider", "offline", "--now", "2026-11-10T21:00")
    live = _live(ws)
    assert not any("杭州" in x for x in live) and any("深圳" in x for x in live), live


def _live(ws) -> list[str]:
    return [
        line
        for name in ("USER.md", "MEMORY.md")
        for line in (ws.root / name).read_text(encoding="utf-8").splitlines()
        if line.startswith("- ") and "~~" not in line
    ]


def test_recall_ranks_the_move_above_the_home_it_replaced_and_labels_that(ws):
    """Issue 39: "where do I live" ranked "I live in Lisbon." (0.955) above the move."""
    _log(
        ws,
        ("2026-11-12T10:00", "user", "I live in Lisbon."),
        *FILLER,
        ("2026-11-20T10:00", "user", "I moved to Porto last week."),
    )
    hits = ws.json("recall", "where do I live", "-k", "3", "--now", NOW)["results"]
    assert "Porto" in hits[0]["snippet"]
    stale = next(h for h in hits if "Lisbon" in h["snippet"])
    assert stale["superseded"] is True and stale["supersededOn"] == "2026-11-20"
    assert (
        stale["supersededBy"] == f"{hits[0]['path']}#L{hits[0]['startLine']}-L{hits[0]['endLine']}"
    )
    assert hits[0].get("superseded") is None
    current = ws.json("recall", "where do I live", "--current", "--now", NOW)["results"]
    assert [h for h in current if "Lisbon" in h["snippet"]] == []
    tsv = ws("recall", "where do I live", "-k", "3", "--now", NOW).stdout.splitlines()
    assert "(superseded 2026-11-20)" in next(x for x in tsv if "Lisbon" in x)


def test_a_fact_said_again_supersedes_in_recall_and_the_brief(ws):
    """A review: the restatement rule held for two texts but never reached recall (only a
    statement with a word of change was read as a later one)."""
    _log(
        ws,
        ("2026-11-01T10:00", "user", "I live in Lisbon."),
        ("2026-11-02T10:00", "user", "My manager is Dorit."),
        *FILLER,
        ("2026-11-20T10:00", "user", "I live in Porto."),
        ("2026-11-21T10:00", "user", "I told my manager about Bob. New sprint starts Monday."),
    )
    current = ws.json("recall", "where do I live", "--current", "--now", NOW)["results"]
    assert "Porto" in current[0]["snippet"]
    assert not [h for h in current if "Lisbon" in h["snippet"]]
    manager = ws.json("recall", "who is my manager", "--current", "--now", NOW)["results"]
    assert any("Dorit" in h["snippet"] for h in manager)


def test_the_brief_states_the_new_preference_before_the_old_one(ws):
    """Issue 39: after "Changed my mind: spaces everywhere now, no more tabs." the brief
    led with the stale preference and listed the old entry first."""
    _log(
        ws,
        ("2026-10-05T11:00", "user", "I prefer tabs over spaces in Go code."),
        *FILLER,
        ("2026-11-10T16:30", "user", "Changed my mind: spaces everywhere now, no more tabs."),
    )
    text = ws("context", "tabs or spaces preference", "--now", NOW).stdout
    lines = text.splitlines()
    first_new = next(i for i, x in enumerate(lines) if "spaces everywhere" in x)
    assert all("prefer tabs" not in x for x in lines[:first_new])
    hits = ws.json("recall", "tabs or spaces preference", "-k", "3", "--now", NOW)["results"]
    assert "spaces everywhere" in hits[0]["snippet"]


def test_the_brief_states_the_current_profile_and_dates_every_line(ws):
    """After a move and a consolidation the profile holds only the new home, the memories
    leave out the superseded entry, and every line of both says its day."""
    ws("log", "--at", "2026-11-12T10:00", "--role", "user", "I live in Lisbon.")
    ws("log", "--at", "2026-11-15T10:00", "--role", "user", "I prefer green tea over coffee.")
    ws("consolidate", "--now", "2026-11-16T09:00")
    ws("log", "--at", "2026-11-20T10:00", "--role", "user", "I moved to Porto last week.")
    ws("consolidate", "--now", "2026-11-21T09:00")
    assert "~~Lives in Lisbon~~" in (ws.root / "USER.md").read_text(encoding="utf-8")
    text = ws("context", "where do I live", "--now", NOW).stdout
    profile = text.split("[User profile]")[1].split("[Relevant memories]")[0]
    memories = text.split("[Relevant memories]")[1].split("</memory>")[0]
    assert "Porto" in profile and "Lisbon" not in profile
    assert "I live in Lisbon." not in memories and "I moved to Porto" in memories
    facts = [x for x in (profile + memories).splitlines() if x.startswith("- ")]
    assert len(facts) >= 4
    assert all(re.search(r"\b2026-11-\d\d\)$", x) for x in facts), facts


def test_an_assistant_never_supersedes_what_the_user_said(ws):
    _log(
        ws,
        ("2026-11-12T10:00", "user", "I use vim for everything."),
        ("2026-11-20T10:00", "assistant", "You could switch from vim to Helix instead."),
    )
    hits = ws.json("recall", "which editor do I use", "--now", NOW)["results"]
    assert all(not h.get("superseded") for h in hits)


FORGETS = [
    ("My salary is 85,000 euros a year before tax.", "salary", "how much do I earn", "85,000"),
    ("My ex, Marcus Feld, still texts me sometimes.", "Marcus Feld", "who is my ex", "Marcus"),
    (
        "My home address is Rua das Flores 112, Porto.",
        "home address",
        "what is my address",
        "Flores",
    ),
    ("I'm vegetarian.", "Is vegetarian", "vegetarian", "vegetarian"),
]


@pytest.mark.parametrize(("said", "words", "question", "gone"), FORGETS)
def test_forget_hides_every_place_that_says_it(ws, said, words, question, gone):
    """Issue 39: after `mem forget` the entry, the HISTORY.md paragraph and the curated line
    were still recalled and injected (3 of 6 forgets held)."""
    _log(ws, ("2026-10-14T12:00", "user", said), *FILLER)
    ws("consolidate", "--now", "2026-11-27T12:00")
    out = ws("forget", words).stdout
    assert "hidden memory/2026-10-14.md#L3-L4" in out and "committed" in out
    for args in (("recall", question), ("recall", question, "--current"), ("recall", gone)):
        found = ws(*args, "--json", "--now", NOW, ok=False)
        assert gone not in found.stdout, args
    assert gone not in ws("context", question, "--now", NOW).stdout
    # A citation the agent still holds reads the same: hidden (memory_get too).
    assert gone not in ws("get", "memory/2026-10-14.md#L3-L4").stdout
    assert gone not in ws("get", "HISTORY.md").stdout
    shown = ws.json("recall", gone, "--include-forgotten", "--now", NOW)["results"]
    assert any(gone in h["snippet"] for h in shown)  # for the person who asks
    logged = (ws.root / "memory" / "2026-10-14.md").read_text(encoding="utf-8")
    assert said in logged  # the log stays verbatim: the entry is hidden, not rewritten


def test_a_forget_by_a_name_forgets_its_other_script(ws):
    """The curated files write a name in both scripts ("豆豆 (Doudou)"): forgetting one must
    not leave the entries and paragraphs that say the other in view."""
    user = ws.root / "USER.md"
    user.write_text(
        user.read_text(encoding="utf-8") + "\n- Cat: 豆豆 (Doudou).\n", encoding="utf-8"
    )
    _log(ws, ("2026-11-08T20:00", "user", "豆豆今天又把花盆打翻了。"), *FILLER)
    out = ws("forget", "Doudou").stdout
    assert "hidden memory/2026-11-08.md#L3-L4" in out
    for question in ("豆豆", "Doudou"):
        found = ws("recall", question, "--json", "--now", NOW, ok=False)
        assert "豆豆" not in found.stdout and "Doudou" not in found.stdout
    assert "豆豆" not in ws("context", "豆豆 怎么样", "--now", NOW).stdout


def test_a_forget_reaches_the_other_clone(tmp_path):
    from helpers import clones

    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-10-03T19:00", "--role", "user", "My salary is 85,000 euros a year.")
    a("sync")
    b("sync")
    assert "85,000" in b("recall", "salary", "--json", "--now", NOW).stdout
    a("forget", "salary")
    a("sync")
    b("sync")
    assert b("recall", "salary", "--json", "--now", NOW, ok=False).exit_code == 1
    assert "85,000" not in b("context", "salary", "--now", NOW).stdout


def test_an_undone_forget_stays_undone_on_every_clone(tmp_path):
    """An outside audit: A forgot, synced; B synced; A undid the forget and synced; B's
    next sync put the forget's paragraph back (HISTORY.md only grows) and A's next sync
    hid the entry again on both. The undo now records that it took the forget back."""
    from helpers import clones

    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-10-03T19:00", "--role", "user", "My sister Ana is a vet in Porto.")
    a("sync")
    b("sync")
    a("forget", "Ana")
    a("sync")
    b("sync")
    assert b("recall", "Ana vet", "--json", "--now", NOW, ok=False).exit_code == 1
    a("undo", "--yes")
    a("sync")
    b("sync")
    a("sync")
    for clone in (a, b):
        assert "vet in Porto" in clone("recall", "Ana vet", "--json", "--now", NOW).stdout
    a("forget", "Ana")  # forgotten again: hidden again, everywhere
    a("sync")
    b("sync")
    assert b("recall", "Ana vet", "--json", "--now", NOW, ok=False).exit_code == 1


def test_mcp_search_leaves_out_what_was_forgotten_and_labels_what_was_superseded(ws):
    from openclaw_mem.memory import Memory

    _log(
        ws,
        ("2026-10-03T19:00", "user", "My salary is 85,000 euros a year."),
        ("2026-11-12T10:00", "user", "I live in Lisbon."),
        ("2026-11-20T10:00", "user", "I moved to Porto last week."),
    )
    ws("forget", "salary")
    mem = Memory.open(ws.root)
    found = mem.search("salary")
    assert found["results"] == []
    moved = json.dumps(mem.search("where do I live"), ensure_ascii=False)
    assert '"superseded": true' in moved and "supersededBy" in moved


def test_what_was_forgotten_before_a_consolidation_is_not_consolidated(ws):
    """A helper's case: forgotten before the run, "I'm allergic to shellfish" became a live
    USER.md line and every brief's profile, while recall said nothing."""
    _log(ws, ("2026-10-01T20:00", "user", "I'm allergic to shellfish."))
    ws("forget", "shellfish")
    ws("consolidate", "--provider", "offline", "--now", "2026-10-02T09:00", ok=False)
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "is allergic to shellfish" not in history, history
    assert not any("shellfish" in x for x in _live(ws))
    brief = ws("context", "what should I cook tonight", "--now", "2026-10-02T10:00").stdout
    assert "shellfish" not in brief, brief
    assert ws.json("status")["consolidation"]["pending"] == 0


SLOT_TEXTS = [
    "Teſla",  # U+017F: IGNORECASE reads it as "s", str.lower() does not
    "I'm a backend developer at Klarwerk",  # slots found by their own patterns
    "Mara and I split up",
    "I cycle to the office",
    "We moved to Porto",
    "我在华为做嵌入式",
    "VıM is my editor",
    "İDE settings",
    "I bike to work at Acme now",
    "My new fiancée Léa and my CAR",
    "我在华为做嵌入式开发，每天坐地铁上班",
    "moved to Berlin with my family; the standup is now at 10",
    "My editor font is JetBrains Mono",
    "nothing here names a slot at all",
    "",
]


@pytest.mark.parametrize("text", SLOT_TEXTS)
def test_slots_found_by_their_words_are_those_every_pattern_finds(text):
    # `_slots_at` skips a slot none of whose words is in the text: the skip must never
    # hide a slot its own pattern finds.
    every = {}
    for name, words in cur.SLOTS.items():
        seen = text
        if name in cur.SLOT_EXCLUDED:
            seen = cur.SLOT_EXCLUDED[name].sub(lambda m: " " * len(m.group()), text)
        found = cur._slot_pattern(words, cur.SLOT_PATTERNS.get(name, "")).search(seen)
        if found is not None:
            every[name] = found.start()
    assert cur._slots_at(text) == every


def test_every_slot_pattern_has_the_needles_that_let_it_be_skipped():
    assert set(cur.SLOT_PATTERNS) <= set(cur._PATTERN_NEEDLES)
