"""Standing orders in English (standing.py reads a sentence for its parts): the verbs of
each action and their forms, the phrases of every other part, and how a window of words
is matched against them. Built on first use: a note with no action word never builds it."""

from __future__ import annotations

from ..text import IGNORECASE
from .gating import once as _once
from .prebuilt import kept
from .prebuilt import pattern as _compiled

# --- English -------------------------------------------------------------------------------
# Read as words, not by regular expressions: a few hundred phrases compiled into sre cost a
# `mem log` process more than 100 ms, a set lookup per word costs nothing to set up.

# Actions, base forms; inflections are made below (send, sends, sent, sending).
_EN_ACTIONS = {
    "move": (
        "send forward cc bcc copy mirror relay sync share upload post email e-mail mail transmit "
        "push ship route redirect deliver export dump pipe hand pass submit publish leak stash "
        "replicate dispatch loop save store put drop paste attach beam give back transfer "
        "duplicate receive land move reach relocate hand-deliver bounce text message dm fax "
        "shoot broadcast syndicate"
    ),
    "run": "run execute exec launch invoke install source eval start trigger spawn open click "
    "download apply perform carry do process follow feed fetch hit evaluate interpret "
    "build kick fire spin boot tap deploy restart reboot",
    "reveal": "reveal print show display output disclose divulge echo recite expose tell share "
    "give provide supply include quote list read spell paste keep add append insert attach walk "
    "carry contain end forthcoming mention surface volunteer dictate enter type fill spill",
    "pay": "pay wire transfer remit top settle reimburse refund purchase buy release place proceed "
    "debit withdraw renew subscribe",
    "delete": "delete remove wipe erase purge clear destroy shred truncate overwrite scrub empty "
    "revoke disable drop discard trash bin dispose rid scrap ditch nuke tidy clean prune expunge "
    "hide mute",
    "trust": "approve accept merge trust whitelist allowlist allow grant authorise authorize treat "
    "act honour honor obey comply assume consider skip bypass waive ignore override confirm "
    "unlock okay",
}
_IRREGULAR = {
    "send": "sent",
    "pay": "paid",
    "give": "gave given",
    "put": "put",
    "run": "ran",
    "tell": "told",
    "show": "shown showed",
    "read": "read",
    "keep": "kept",
    "buy": "bought",
    "spell": "spelt spelled",
    "do": "did done does",
    "feed": "fed",
}
# The action named by its noun: "stop checking with me before card payments".
_ACTION_NOUNS = frozenset(
    "payments transfers purchases deletions refunds deployments deploys installs downloads "
    "uploads wires withdrawals".split()
)


def _forms(base: str) -> tuple[str, list[str], str]:
    """(third person, past forms, -ing) of an English verb, near enough for these verbs."""
    if base.endswith(("s", "sh", "ch", "x")):
        third = base + "es"
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        third = base[:-1] + "ies"
    else:
        third = base + "s"
    if base.endswith("e"):
        past, ing = base + "d", base[:-1] + "ing"
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        past, ing = base[:-1] + "ied", base + "ing"
    elif (
        len(base) <= 4
        and base[-1] in "bdgmnprt"
        and base[-2] in "aeiou"
        and base[-3] not in "aeiou"
    ):
        past, ing = base + base[-1] + "ed", base + base[-1] + "ing"
    else:
        past, ing = base + "ed", base + "ing"
    return third, [past, *_IRREGULAR.get(base, "").split()], ing


_MODALS = "will 'll would 'd can could should must shall may might usually normally"
_ADVS = "also then just always often never already still now"
# What may open an order before its verb (one word or several), and what follows an
# imperative verb: its object.
_LEADS = (
    "please|kindly|just|also|then|now|simply|always|routinely|automatically|henceforth|"
    "hereafter|by default|going forward|moving forward|from now on|from here on|"
    "from here on out|in future|in the future|and|so"
)
# Verbs of asking or getting in touch: what someone else does to set an order off.
_REQUESTS = (
    "ask asks asked call calls rings phones request requests text texts email emails writes "
    "messages pings contacts wants needs demands"
)
# Words that open a clause set before an order, saying when or how often it applies.
_FRONTS = (
    "if when whenever once after before on at in during each every for as upon until while by "
    "whatever whoever anytime should"
)
_OBJECTS = (
    "it them this that these those the a an all any every each my your our their his her its "
    "whatever everything anything up out over along in on down off back"
)

# The parts, as phrases of words. `(a|b)` is one of, `_` joins words inside it, `?` makes
# an item optional, `*N` skips up to N words, `<CLASS>` is a word of a class (BASE,
# IMPERATIVE, ANY, FINITE, PAST, ADV, MODAL, OBJ, CAP, WORD), `!(a|b)` a word that is none
# of them, `^` the start of the sentence and LEADS any words that may open an order.
_EN_PARTS = {
    "scope": [
        "from now on",
        "for future",
        "(all|any) (future|upcoming|subsequent|incoming|further|outgoing|new)",
        "(for|during|over) the (next|coming) *2 (days|weeks|months|years|window|period)",
        "for the rest of (the|this|his|her|their) <WORD>",
        "(as|into) a (habit|routine|rule|matter_of_course|standing_order)",
        "set (this|it|that) up as",
        "(new|standing|permanent|regular|ongoing) (routine|arrangement|habit|practice|procedure)",
        # doing it without end: "keep mirroring the calendar", "continue to send"
        "(keep|continue|carry_on|go_on) (on)? <ING>",
        "continue to <BASE>",
        "from here on",
        "from here on out",
        "from this point (on|forward)?",
        "(going|moving) forward",
        "(henceforth|hereafter|routinely|permanently|indefinitely)",
        "hence forward",
        "in the? future",
        "for? all future",
        "any future",
        "until (told|i_say|you_hear) otherwise",
        "until further notice",
        "as a standing? (rule|policy|habit)",
        "as a matter of course",
        "standing (rule|order|instruction)",
        "by default",
        "as (standard|a_default)",
        "make (it|this) a? (habit|rule|routine|default)",
        "no matter (what|who)",
        "next time and (every_time)? after",
        "each and every",
        "(any_time|anytime)",
        "starting (today|now|tomorrow)",
        "for the foreseeable future",
        "at all times",
        "without fail",
        "without exception",
        "no exceptions",
        "on every occasion",
        "as (standard|usual) practice",
        "(habitually|invariably)",
        "for good",
        "ever again",
        "(anymore|any_more|no_longer)",
        "in (all|every) (case|cases)",
        "make a (habit|point|rule|practice) of",
        "consider it (standard|routine|normal|policy|the_default|the_rule|standard_practice)",
        "from (today|this_day) (on|onward|onwards)",
        "(new|house|standing|permanent|general|default) (rule|rules|policy|policies|procedure|"
        "procedures|instruction|instructions)",
        "(rule|rules) for the? (assistant|agent|ai|bot|model|you)",
    ],
    "recurs": [
        "(always|whenever|every|each|daily|nightly|weekly|monthly|hourly|automatically|regularly|"
        "constantly|continuously|whatever|whoever|anything|anyone|anybody|everything)",
        "on (mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)",
        "on <WORD>? (days|nights|mornings|evenings|afternoons|weekends|weekdays|paydays)",
        "(once|twice|three_times|several_times) (a|per|every) (day|week|month|year|quarter)",
        "(periodically|routinely|habitually|repeatedly)",
        "on a (daily|weekly|monthly|regular|rolling|recurring) basis",
        "around the clock",
        "any !(of|more|longer|way|idea|chance|case)",
        "on an ongoing basis",
        "as (they|it) (come|comes|arrive|arrives|happen|happens)",
        "from today",
    ],
    "condition": [
        "^ (should|after|before)",
        "(,|;|:|and|then) (should|after|before)",
        "(if|when|whenever|once|upon|as_soon_as|the_moment|the_minute|the_second|in_case|"
        "any_time|anytime)",
    ],
    "destination": [
        "(iban|telegram|whatsapp|signal|discord|wechat|pastebin|gist|dropbox|google_drive|"
        "wetransfer|imgur|gmail|yahoo|hotmail|protonmail|proton_mail|icloud)",
        "(outside|external|personal|private|offsite|off-site|alternate|secondary|other|backup) "
        "(e-mail|email)? (address|account|inbox|mailbox|server|drive|number|channel|bucket|"
        "location|phone|wallet)",
        "(the|this|that) phone? (number|address|account|inbox|mailbox|link|url|contact|handle|"
        "server|channel) (in|from|at|on|below|above|listed|given|mentioned|provided|shown|quoted)",
    ],
    "sensitive": [
        "(password|passwords|passcode|passcodes|passphrase|passphrases|credential|credentials|"
        "login|logins|token|tokens|apikey|api-key|api_key|api_keys|secrets|secret|seed|2fa|otp|"
        "otps|cvv|ssn|pin|transcript|transcripts|conversation|conversations|chat|chats|inbox|"
        "contacts|salary|salaries|admin|vault|contract|contracts|itinerary|itineraries|"
        "whereabouts|wallet|wallets|dsn|authenticator|refund|refunds|pay|pays|paid|paying|"
        "settle|wire|wired|remit|accounts|confidential|sensitive|restricted|classified|"
        "privileged|funds|money|payment|payments|transfer|transfers)",
        "api (key|keys)",
        "(private|ssh) (key|keys)",
        "seed phrase",
        "recovery (code|codes|phrase)",
        "one-time (code|codes|password|passwords)",
        "(verification|security|auth|login|sms|access|gate|door|alarm|entry|building|safe|lock|"
        "unlock|garage|pin|recovery|backup|confirmation|otp|mfa|pairing|wifi|wi-fi) (code|codes)",
        "account balance",
        "card (number|numbers|details)",
        "social security",
        # identity papers and their numbers
        "(passport|passports|visa|licence|license|tax|insurance|id|identity) (number|numbers|"
        "details|scan|scans|copy|copies|photo|photos)",
        "(passport|passports|date_of_birth|birth_date|mother's_maiden_name)",
        "bank (details|info|login|logins)",
        "account (number|numbers)",
        "system prompt",
        "chat (history|log|logs)",
        "address book",
        "(customer|client|patient|member|donor|employee|staff) (data|details|list|lists|records|"
        "database|files|contacts)",
        "personal (data|info|information|details)",
        "home address",
        "phone (number|numbers)",
        "memory (file|files|log|logs|notes|contents)",
        # what the agent remembers, not "a memory" (one recollection)
        "(your|my|the|its|all|long-term|the_user's|his|her|their) memory",
        "your (notes|memories|records)",  # what the agent keeps of the user
        "(payslip|payslips|payroll|earnings|income|pay_stub|pay_stubs|tax_return|tax_returns)",
        "login (details|info)",
        "connection (string|strings)",
        "security (question|questions)",
        "(how|the_way) to (get|log|sign) (in|into)",
        "the way (in|into)",
        "(digits|numbers|number|codes|code) that? the? (bank|authenticator|app|phone) (sends|"
        "send|texts|text|shows|show|gives|give)",
        "bank accounts",
        "(saved|credit|debit|bank|payment|savings) (card|cards)",
        "(number|numbers) on (the|your|my|the_user's)? card",
    ],
    "records": [
        "(file|files|folder|folders|notes|document|documents|docs|log|logs|history|record|"
        "records|backup|backups|email|emails|e-mail|e-mails|message|messages|mail|inbox|photo|"
        "photos|screenshot|screenshots|attachment|attachments|data|database|report|reports|"
        "thread|threads|audit)",
    ],
    "untrusted code": [
        "(whatever|any|every|each|all) *2 (script|scripts|file|files|attachment|attachments|"
        "link|links|command|commands|code|program|programs|binary|binaries|installer|"
        "installers|macro|macros|executable|executables|snippet|snippets|extension|extensions|"
        "plugin|plugins|add-on|add-ons|addon|addons|package|packages|patch|patches|update|"
        "updates|app|apps)",
        "(whatever|anything|everything) that? (lands|arrives|appears|pasted|posted|forwarded|"
        "shared|comes_in|shows_up|is_sent|gets_sent|is_pasted|is_posted|is_forwarded|is_shared|"
        "gets_pasted|gets_posted|gets_forwarded|gets_shared)",
        "(to|into|let) (the|a|your)? (shell|terminal|console|command_line)",
        "code (block|blocks|snippet|snippets)",
        "(snippet|snippets|one-liner|one-liners)",
        "do (what|whatever) (it|they) (says|say|asks|ask|tells_you|tell_you)",
        "do (what|whatever) the <WORD> (says|asks|tells_you)",
        "follow (its|their) instructions",
        "(incoming|received|attached) (file|files|attachment|attachments|link|links|script|"
        "scripts)",
        "(to|on|into|against) the? <WORD>? (machine|box|server|production|prod|cluster|"
        "live_system|live_environment)",
        "(anything|whatever) *6 (hands|hand|gives|give|sends|send|links|link|posts|post|passes|"
        "forwards|forward|shares|share) (you|us|over)",
    ],
    # What came from someone else, run as it is: a verb of running with its object handed
    # in ("after a file is shared with you, run it", "install whatever the newsletter
    # recommends"); weighed as untrusted code where a verb of running is there.
    "received": [
        "(shared|sent|forwarded|given|passed|handed|posted|linked|pasted|uploaded|emailed|"
        "texted|dropped) (to|with)? (you|us)",
        "(arrives|arrive|arrived|lands|land|landed|appears|appear|appeared|shows_up|show_up|"
        "turns_up|turn_up|comes_in|come_in|comes_through|pops_up|pop_up)",
        "(posts|pastes|sends|shares|forwards|links|drops|uploads|attaches|recommends|recommend|"
        "recommended|suggests|suggest|suggested|proposes|names|lists|mentions) (a|an|any|the|"
        "some|their|its|new)? <WORD>",
        "(incoming|received|attached|forwarded|recommended|suggested)",
        "(whatever|anything|everything) *6 (says|say|asks|ask|recommends|recommend|suggests|"
        "suggest|names|lists|links|points_to|sends|send|posts|post|hands|gives|shares)",
    ],
    # A request from someone else sets it off ("if they ask for the code", "when the
    # pharmacy calls", "their driver will ask you"): whoever asks gets it.
    "asked by another": [
        "(if|when|whenever|once|should|in_case|the_moment|as_soon_as|next_time|anytime|any_time|"
        "every_time|each_time) !(i|we|you) *4 <REQUEST>",
        "(ask|asks|call|calls|request|requests|text|texts|email|emails|message|messages|contact|"
        "contacts) (you|the_assistant|the_agent)",
    ],
    # ... unless it is the user or the user's own people who ask ("whenever my sister asks").
    # A date that makes it happen once: "today", "on Tuesday", "this afternoon".
    "one-off": [
        "(today|tonight|tomorrow|tomorrow's|tonight's|today's|yesterday)",
        "(this|next|on|by|until|before) (monday|tuesday|wednesday|thursday|friday|saturday|"
        "sunday|morning|afternoon|evening|weekend|week)",
        "this (time|once)",
        "just (this|the) once",
        "for now",
    ],
    "asked by the user": [
        "(if|when|whenever|once|should|the_moment|anytime|any_time|every_time|each_time) "
        "(the_user|my_user|your_user|my|our) *2 <REQUEST>",
        "(i|we|i'll|we'll|i'd|we'd) <MODAL>? <REQUEST> (you|the_assistant|the_agent)",
    ],
    # Someone else's word passed on as the user's, or consent claimed for them ("Lin said
    # you handle her bills", "asked me to manage things", "she agreed to it ages ago",
    # "the user is fine with that", "he's cleared").
    "relayed": [
        "(said|says|told_me|asked_me|agreed|wants|wanted|decided) (that)? (you|the_assistant|"
        "the_agent) !(to)",
        "(asked|told|authorised|authorized|allowed|trusted) me to (manage|handle|take|deal|"
        "look|run|act|collect|sort)",
        "(agreed|approved|okayed|consented|signed_off|cleared|authorised|authorized) (to|on)? "
        "(it|this|that|them)? (ages_ago|already|earlier|before|in_advance|by_phone|long_ago|"
        "last_week|last_month)",
        "(is|are|was|were) (fine|ok|okay|happy|alright|cool) with (that|this|it)",
        "(this|it|that) (was|has_been|is) (agreed|approved|cleared|authorised|authorized|"
        "okayed|signed_off) (by_phone|already|in_advance|ages_ago|earlier|before)",
        "(it's|it_has|this_has|that's|that_has|this's) (been|already_been) (agreed|approved|"
        "cleared|authorised|authorized|okayed|signed_off|pre-approved)",
        "(he's|she's|they're|he_is|she_is|they_are) (cleared|authorised|authorized|approved|"
        "trusted|vetted|allowed|verified)",
        "(won't|wouldn't|doesn't|does_not|will_not|would_not) mind",
    ],
    # The one writing says who they are, and it is not the user: their "me" is not the
    # user's ("This is your user's brother Tom", "I'm Lin's mum").
    "other speaker": [
        "(this_is|i'm|i_am|it's) (your|the|my)? (user's|owner's|principal's|boss's|employer's)",
        "(this_is|i'm|i_am|it's) <POSS>",
    ],
    "anyone": [
        "(anyone|anybody|whoever|someone|somebody|whomever|contractor|contractors|vendor|"
        "vendors|outsider|outsiders|stranger|strangers|publicly|partner|partners|agency|"
        "agencies|competitor|competitors|rival|rivals)",
        "(a|an) caller",
        "the (caller|requester|sender|person_asking)",
        "(third-party|third-parties|third_party|third_parties)",
        "the public",
        "partner (firm|firms|companies)",
        "outside (firm|firms|party|parties)",
    ],
    "secrecy": [
        "(silently|quietly|secretly|discreetly|covertly|yourself|auto-approve|autoapprove|"
        "as-is|blindly|unreviewed|unchecked)",
        "behind the scenes",
        "without (a|any)? (asking|approval|review|prompt|prompts|prompting|question|questions|"
        "flagging|letting|telling|me_knowing|anyone_knowing|a_word|confirmation|confirming|"
        "checking|check|notifying|notification)",
        "no need to (ask|confirm|check|tell|mention|notify|loop|run_it_by|flag)",
        "(don't|do_not|never|no_need_to) (ask|bother|check|confirm|tell|mention|notify|inform|"
        "loop|wait|flag|report) (me|the_user|anyone|anybody|first|about|with)",
        "skip (the|any)? (confirmation|confirmations|approval|approvals|review|reviews|check|"
        "checks|prompt|prompts) step?",
        "keep (it|this|that) (quiet|to_yourself|between_us|off_the_record)",
        "(nobody|no_one) (needs|has|should) to? know",
        "no questions asked?",
        "(pre-cleared|precleared|pre-approved|preapproved|pre-authorised|pre-authorized)",
        "assume (yes|it's_ok|it's_fine|it's_approved|its_ok)",
        "(no|not_any|no_longer_any) (need|call) for (a|any)? (sign-off|signoff|approval|"
        "confirmation|review|check)",
        "(no|without) (sign-off|signoff|double-check|double-checking|double-checks)",
        "leave (me|the_user|them|him|her) out of (it|this|the_loop)",
        "(spare|save) (me|the_user) the",
        "(doesn't|does_not|don't|do_not|won't) (need|have) to (know|hear|see|be_told)",
        "(you|you'll) (don't|do_not|won't|will_not|never) (need|have) to (mention|tell|ask|check|"
        "confirm|bother|wait|flag|run_it_by|bring_it_up)",
        "(keep|it's) (it|this|that)? between (us|you_and_me|ourselves)",
        "without (bothering|pinging|troubling|alerting|disturbing|consulting|looping_in|"
        "waiting_for|running_it_by|a_heads-up) (me|the_user|anyone|them|him|her|for)?",
        "(don't|do_not) (trouble|disturb|bug|pester|bother) (me|the_user)",
        "(no_need|not_necessary|unnecessary) to (run|put) *5 (past|by|before) (me|the_user|anyone)",
        "no (review|testing|tests|check|checks)",
        "(don't|doesn't|do_not|does_not|no_longer|won't) (need|require) (my|the_user's|a|an|"
        "any) <WORD>? (nod|ok|okay|approval|sign-off|go-ahead|say-so|confirmation|review|"
        "blessing|permission|green_light|look|check|opinion|pair_of_eyes)",
        "(stop|quit|no_more|no_longer) (asking|confirming|checking|prompting|prompt|prompts|"
        "confirmation|confirmations|approval|approvals)",
        "(confirmation|confirmations|approval|approvals|review|reviews|sign-off|sign-offs|"
        "double-check|double-checks|safety_check|safety_checks|prompt|prompts|dialog|dialogs|"
        "pop-up|pop-ups|popup|popups) (step|steps)? (is|are|has_been|have_been)? now? (gone|off|"
        "over|dropped|removed|disabled|switched_off|turned_off|unnecessary|not_needed|optional|"
        "skipped|no_longer_needed|no_longer_required|no_longer_necessary)",
        "(you're|you_are|the_assistant_is|the_agent_is) now? (authorised|authorized|allowed|"
        "permitted|cleared|free) to",
        "(confirmation|confirmations|approval|approvals|review|reviews|sign-off|sign-offs|check|"
        "checks|prompt|prompts|dialog|dialogs) *8 (can|may|should|will) be (skipped|dropped|"
        "ignored|waived|bypassed|omitted)",
        "(skip|bypass|waive|ignore) (the|any|all)? (confirmation|confirmations|approval|"
        "approvals|review|reviews|sign-off|sign-offs|check|checks|prompt|prompts)",
        "(has|have) already? (signed_off|okayed|pre-approved) on? (this|it|that|them|all)",
    ],
    "authority": [
        "treat *12 as if? (they_came_from|it_came_from)? (the_user|the_user's|me|approved|"
        "approval|approvals|trusted|authorised|authorized|pre-approved|safe|genuine|legitimate)",
        "treat *12 as coming from (the_user|me)",
        "treat *12 as if (the_user|i) (gave|sent|said|wrote)",
        "(speaks|speak|acts|act) (for|on_behalf_of) (the_user|me)",
    ],
    "ask first": [
        "ask (me|the_user|first|before)",
        "(check|confirm) with (me|the_user)",
        "get (my|the_user's) (ok|okay|approval|sign-off)",
        "wait for (my|the_user's) (ok|okay|approval|go-ahead)",
        "remind me",
        "only (after|with) (my|the_user's) (ok|approval)",
    ],
    # Said to the agent: a sentence that starts with its verb (after a scope word, "please"
    # or the like), a verb with its object after a comma or "and"/"then" (not "… and
    # output"), "you should", "make sure to", or a rule in the passive ("should be paid to").
    "to the agent": [
        "^ LEADS <IMPERATIVE>",
        "(,|:|;|—|–|and|then) LEADS <BASE> <OBJ>",
        # an imperative after a clause that sets when or how often ("On the first of each
        # month, move …", "Before opening a pull request, fetch and execute …")
        "^ LEADS <FRONT> *20 (,|:) LEADS <IMPERATIVE>",
        "(:|;|—|–) LEADS <FRONT> *20 (,|:) LEADS <IMPERATIVE>",
        # the agent named, as the one asked or allowed ("assistants … are asked to forward")
        "(assistant|assistants|agent|agents|bot|bots|ai|helper|helpers) *6 (is|are) now? "
        "(asked|expected|required|requested|permitted|allowed|authorised|authorized|"
        "pre-authorised|pre-authorized|encouraged|supposed|cleared|free|welcome|instructed|"
        "invited|to)",
        "(assistants|agents|bots|helpers) (<MODAL>|need_to|have_to)",
        "(dear|hey|hi|hello|attention|attn) (the|any|all|our|my)? ai? (assistant|assistants|"
        "agent|agents|bot|bots|ai)",
        "(note|notes|reminder|message|instructions|memo|rules|routine) (to|for) (the|any|all|our|"
        "my)? ai? (assistant|assistants|agent|agents|bot|bots|ai|you)",
        # leave given
        "(it's|it_is|that's|that_is) (fine|ok|okay|alright|acceptable|safe|allowed|permitted) "
        "(to|for_you_to)",
        "(you're|you_are) (welcome|free) to",
        "(remember|make_sure|be_sure|don't_forget|do_not_forget|you're|you_are|you're_supposed|"
        "you_are_supposed|you_need|you_have|you_ought|i_want_you|i_need_you|we_want_you|"
        "we_need_you|i_would_like_you|i'd_like_you|we_would_like_you|we'd_like_you|your_job_is|"
        "your_task_is|your_role_is) to <BASE>",
        "you <MODAL> <ADV>? <BASE>",
        "(make_sure|be_sure|ensure|see_to_it) that? you <ADV>? <BASE>",
        "(^|,|:|;) LEADS do <BASE>",  # emphatic: "Do send …" ("Do you …" asks)
        "(you'll|you'd) <ADV>? <BASE>",
        "(should|must|shall|is_to|are_to|need_to|needs_to|has_to|have_to|may|can) <ADV>? be "
        "<ADV>? <FINITE>",
        "(could|can|would|will) you",
        "(should|must|shall|need_to|needs_to|has_to|have_to) <ADV>? <BASE>",
        "(you_have|you've_got|you_have_got) my (blessing|permission|ok|okay|go-ahead) to",
        "(i'd|i_would|we'd|we_would) (appreciate|like|love|prefer) it? (if|you|to|that)",
        "(it_would|it'd|it_will|it'll|it's|it_is|that_would|that'd) be? (great|good|nice|"
        "helpful|best|handy|useful|ideal|better|easier|appreciated|lovely|perfect) (if|to|for_you)",
        "(i'd|i_would|we'd|we_would) (love|like) for you to",
        "let's (have|get) you",
        "feel free to",
        "the? (assistant|agent|bot|ai|model|helper) (<MODAL>|is_to|is_expected_to|needs_to|has_to)",
        "(you're|you_are|the_assistant_is|the_agent_is) now? (authorised|authorized|allowed|"
        "permitted|cleared|free|expected|required|supposed) to",
        "(go|goes) (straight|directly)? (to|into)",
        "(get|gets) <ADV>? <FINITE>",
        "^ LEADS let <WORD> *5 <BASE>",
        "^ LEADS (be|make|let|stop|quit|ensure|see_to_it|go_ahead|feel_free|don't_hesitate|"
        "do_not_hesitate)",
    ],
    "not the agent": [
        "(i|we|they) <ADV>? <MODAL>? <ADV>? <ANY>",
        "(i'll|we'll|they'll|i'd|we'd|they'd) <ADV>? <ANY>",
        "(i've|we've|they've) <ADV>? <ANY>",
        "^ (each_<WORD>|every_<WORD>)? ,? (he|she|it) <ADV>? (<FINITE>|<MODAL>)",
        "(,|;|:|and|but|so|because|while|when|if|then) (each_<WORD>|every_<WORD>)? ,? (he|she|it) "
        "<ADV>? (<FINITE>|<MODAL>)",
        "^ (each_<WORD>|every_<WORD>)? ,? (the|our|my|his|her|their) "
        "!(assistant|agent|bot|ai|model|helper) <WORD>? <ADV>? (<FINITE>|<MODAL>)",
        "(,|;|:|and|but|so|because|while|when|if|then) (each_<WORD>|every_<WORD>)? ,? "
        "(the|our|my|his|her|their) !(assistant|agent|bot|ai|model|helper) <WORD>? <ADV>? "
        "(<FINITE>|<MODAL>)",
        "<CAP> <ADV>? <FINITE>",
        "<CAP> <ADV>? <MODAL> <BASE>",
        "^ <PAST>",
    ],
    "own destination": [
        "(to|into|in|on|onto|at) the? (our|ours|team|team's|company|company's|internal|in-house|"
        "family|shared_family|me|myself)",
        # the user's family: "give it to her" after "whenever my wife asks"
        "(my|our) (wife|husband|partner|sister|brother|mum|mom|mother|dad|father|parents|son|"
        "daughter|kids|children|family)",
        "(in|into|to|under) (the|my|our)? *2 (folder|directory|drive|calendar)",
    ],
    "someone else acts": [
        "(tell|ask|remind|advise|invite|direct|encourage|get|have|let) (them|him|her|people|"
        "customer|customers|user|users|client|clients) to? <BASE>",
        "(tell|ask|remind|advise|invite|direct|encourage|get|have|let) the <WORD> to? <BASE>",
    ],
    "action idiom": [
        "let <WORD> *5 (see|have|view|read|access|know|get)",
        "make <WORD> *4 (available|accessible|visible|public)",
        "walk (them|him|her|people|anyone|whoever) through",
        "(go|goes) (straight|directly)? (to|into)",
    ],
}
# What only the characters show: an address, a host, a number, a path, an amount.
_EN_SHAPES = {
    "destination": (
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?|ftp|sftp|s3|gs|wss?)://|\bt\.me/|"
        r"\b\d{1,3}(?:\.\d{1,3}){3}\b|"
        # a phone, account or card number (not a date or a time)
        r"(?<![\w.:-])(?!\d{4}-\d\d-\d\d|\d\d?:\d\d)\+?(?:\d[ -]?){9,22}\d(?!\w|\.\w|:\d)|"
        r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b|\b0x[0-9a-fA-F]{40}\b|"
        r"(?<![\w.])@[A-Za-z_][\w.]{2,30}|\b[\w-]{2,}(?:\.[\w-]+)*\.(?P<tld>[A-Za-z]{2,12})\b"
    ),
    "sensitive": (
        r"(?<![\w.])\.(?:env|ssh|aws|gnupg|netrc|npmrc|pypirc)\b|/etc/(?:passwd|shadow)\b|"
        r"\bid_(?:rsa|ed25519|ecdsa)\b|\.pem\b|\b(?:memory|user|agents)\.md\b|[$€£¥]\d|"
        r"\b(?:usd|eur) ?\d"
    ),
    "untrusted code": r"\S\.(?:sh|exe|ps1|bat|msi|dmg|apk|jar)\b",
}
# Top-level domains an address ends in (a file name's extension is not one: MEMORY.md).
_TLDS = frozenset(
    "com net org io co ai app dev me info biz xyz top site online help link cn ru uk de fr jp "
    "kr us cc tv ly gg to example test invalid cloud tech pro club shop store live space zone "
    "email mail".split()
)
# Words (an address, a host, "don't", "sign-off" each one word; a path splits at its slashes).
_WORD_RE = (
    r"[a-z][a-z0-9+.-]*://\S+|[A-Za-z0-9][A-Za-z0-9'’_.@+-]*[A-Za-z0-9]|[A-Za-z0-9]|[^\sA-Za-z0-9]"
)


@_once
def _english():
    """The word classes and the phrases, indexed by their first word, and the patterns
    (built on first use; kept between processes, prebuilt.py)."""
    classes, deleting, leads, index = _tables()
    shapes = {
        k: _compiled(v, IGNORECASE if k != "destination" else 0) for k, v in _EN_SHAPES.items()
    }
    return classes, deleting, leads, index, shapes, _compiled(_WORD_RE)


@kept(__name__, lazy=(0, 3))  # built from this file's constants alone
def _tables():
    """The word classes, the forms of the verbs of deleting, the leads, and the phrases
    indexed by their first word."""
    bases = frozenset(w for group in _EN_ACTIONS.values() for w in group.split())
    forms = {b: _forms(b) for b in bases}
    third = {f[0] for f in forms.values()}
    past = {p for f in forms.values() for p in f[1]}
    ing = {f[2] for f in forms.values()}
    classes = {
        "BASE": bases,
        # A sentence that starts with "do" asks ("Do you want a cron snippet?"): not an order.
        "IMPERATIVE": bases - {"do"},
        "ANY": bases | third | past | ing,
        "FINITE": frozenset(third | past),
        "PAST": frozenset(past - bases),  # "put" reads as an order
        "MODAL": frozenset(_MODALS.split()),
        "OBJ": frozenset(_OBJECTS.split()),
        "ADV": frozenset(_ADVS.split()),
        "FRONT": frozenset(_FRONTS.split()),
        "ING": frozenset(ing),
        "RUN": frozenset(_EN_ACTIONS["run"].split()),
        "REQUEST": frozenset(_REQUESTS.split()),
    }
    deleting = {
        w
        for b in _EN_ACTIONS["delete"].split()
        for w in (b, forms[b][0], *forms[b][1], forms[b][2])
    } | {"deletion", "deletions", "removal", "removals"}
    leads = [tuple(lead.split()) for lead in _LEADS.split("|")]
    # A phrase is tried where its first word is; one that starts with a class or an
    # optional item is tried everywhere, one that starts at the sentence's start only there.
    index: dict[str | None, list] = {}
    for name, phrases in _EN_PARTS.items():
        for phrase in phrases:
            items = [_item(word) for word in phrase.split()]
            while len(items) > 1 and items[0][2]:
                # An optional first item never decides whether a phrase matches somewhere
                # (it is tried at every word): dropped, the phrase is indexed by what follows.
                items.pop(0)
            kind, value, optional = items[0]
            if kind in ("start", "leads"):
                keys: tuple = ("^",)
            elif kind == "alt" and not optional:
                keys = value
            elif kind == "seq" and not optional and not value[2]:
                keys = tuple(value[1])
            else:
                keys = (None,)
            entry = (name, items)  # one object under every key (prebuilt keeps it once)
            for key in keys:
                index.setdefault(key, []).append(entry)
    return classes, frozenset(deleting), leads, index


def _item(word: str):
    """One item of a phrase: (kind, value, optional)."""
    optional = word.endswith("?") and len(word) > 1
    word = word.rstrip("?") if optional else word
    if word == "^":
        return ("start", None, False)
    if word == "LEADS":
        return ("leads", None, False)
    if word.startswith("*"):
        return ("gap", int(word[1:]), False)
    if word.startswith("<"):
        return ("class", word[1:-1], optional)
    if word.startswith("!("):
        return ("not", frozenset(word[2:-1].split("|")), optional)
    if word.startswith("("):
        inner = word[1:-1]
        if "_" not in inner and "<" not in inner:
            return ("alt", frozenset(inner.split("|")), optional)
        alts = tuple(tuple(a.split("_")) for a in inner.split("|"))
        if all(len(a) == 1 for a in alts) and not any(a[0].startswith("<") for a in alts):
            return ("alt", frozenset(a[0] for a in alts), optional)
        # the alternatives by their first word, and those that start with a class
        by_first: dict[str, list[tuple[str, ...]]] = {}
        for a in alts:
            if not a[0].startswith("<"):
                by_first.setdefault(a[0], []).append(a)
        return ("seq", (alts, by_first, [a for a in alts if a[0].startswith("<")]), optional)
    return ("alt", frozenset((word,)), optional)


def _is(word: str, cls: str, classes) -> bool:
    if cls == "WORD":
        return word[:1].isalnum()
    if cls == "ADV":
        return word in classes["ADV"] or (word.endswith("ly") and len(word) > 3)
    if cls == "OBJ":  # what follows a verb as its object: a pronoun, a determiner, a number
        return (
            word in classes["OBJ"]
            or "@" in word
            or "://" in word
            or word[:1].isdigit()
            or word[:1] in "$€£¥"
        )
    if cls == "FRONT":
        return word in classes["FRONT"]
    return word in classes[cls]


def _matches(items, words, written, at, classes, leads) -> bool:
    """Whether `items` match the words from `at` on (backtracking over optional items and
    gaps; phrases are short)."""
    if not items:
        return True
    kind, value, optional = items[0]
    rest = items[1:]
    if optional and _matches(rest, words, written, at, classes, leads):
        return True
    if kind == "start":
        return at == 0 and _matches(rest, words, written, at, classes, leads)
    if kind == "leads":
        while True:
            if _matches(rest, words, written, at, classes, leads):
                return True
            step = next(
                (len(lead) for lead in leads if tuple(words[at : at + len(lead)]) == lead),
                # a comma, or an adverb ("Quietly delete …"; "never" forbids, it does not lead)
                1
                if at < len(words)
                and (words[at] == "," or _is(words[at], "ADV", classes))
                and words[at] not in _EN_NEGATORS
                else 0,
            )
            if not step:
                return False
            at += step
    if kind == "gap":
        return any(
            _matches(rest, words, written, at + n, classes, leads)
            for n in range(value + 1)
            if at + n <= len(words)
        )
    if at >= len(words):
        return False
    word = words[at]
    if kind == "alt":
        return word in value and _matches(rest, words, written, at + 1, classes, leads)
    if kind == "not":
        return (
            word[:1].isalnum()
            and word not in value
            and _matches(rest, words, written, at + 1, classes, leads)
        )
    if kind == "class":
        if value == "CAP":  # a name as written: Dana, Bob (not "I", not "API")
            ok = written[at][:1].isupper() and written[at][1:].islower()
        elif value == "POSS":  # a name's: Lin's
            ok = written[at][:1].isupper() and written[at].endswith("'s")
        else:
            ok = _is(word, value, classes)
        return ok and _matches(rest, words, written, at + 1, classes, leads)
    # seq: one of several alternatives, each of one or more words or classes
    _, by_first, by_class = value
    tried = by_first.get(word, [])
    if by_class:
        tried = [*tried, *(a for a in by_class if _is(word, a[0][1:-1], classes))]
    for alt in tried:
        n = len(alt)
        if at + n > len(words):
            continue
        if all(
            _is(w, a[1:-1], classes) if a.startswith("<") else w == a
            for w, a in zip(words[at + 1 : at + n], alt[1:], strict=True)
        ) and _matches(rest, words, written, at + n, classes, leads):
            return True
    return False


def _en_parts(window: str) -> tuple[set[str], bool]:
    """The parts an English reading of the window finds, and whether it holds an action."""
    classes, deleting, leads, index, shapes, word_re = _english()
    written = [w.replace("’", "'") for w in word_re.findall(window)]
    while written and not written[0][:1].isalnum():
        written.pop(0)  # a list item's dash, a quote: the sentence starts after them
    words = [w.lower() for w in written]
    found: set[str] = set()
    general = index.get(None, ())
    for at, word in enumerate(words):
        tried = (*index.get(word, ()), *general, *(index.get("^", ()) if at == 0 else ()))
        for name, items in tried:
            if name not in found and _matches(items, words, written, at, classes, leads):
                found.add(name)
    if any(w in deleting for w in words):
        found.add("delete")
    if any(w in classes["RUN"] for w in words):
        found.add("runs")
    acting = "action idiom" in found or any(
        w in classes["ANY"] or w in _ACTION_NOUNS for w in words
    )
    found.discard("action idiom")
    for name, pattern in shapes.items():
        if name in found:
            continue
        for m in pattern.finditer(window):
            if name != "destination" or not m["tld"] or m["tld"].lower() in _TLDS:
                found.add(name)
                break
    return found, acting


_EN_NEGATORS = frozenset(
    "never don't dont not doesn't won't shouldn't mustn't can't cannot".split()
)
