"""Reference sentences about nothing a memory would hold, in English and Chinese.

How close a query's embedding comes to these says how close "unrelated" is for this query
and this model (cosine scales differ a lot between models: USE's unrelated pairs sit near
0.1, e5's near 0.8). A chunk counts as a match by meaning only when it is closer to the query
than the nearest of these: the floor adapts to any provider without calibration.

Short replies that say nothing ("ok", "谢谢", "嗯") are a second reference: a sentence
encoder puts them near the middle of its space, where a query it cannot read (gibberish, a
word it never saw) lands too. Their cosines to such a query are 0.4-0.6, ten spreads above
the sentences below, so only "closer than an empty reply" keeps them out.
"""

NULL_TEXTS = (
    "The river froze early this winter and the ferry stopped running.",
    "A recipe for lemon cake needs eggs, flour, sugar and butter.",
    "The museum reopened its east wing after renovation.",
    "Tides are caused by the gravitational pull of the moon.",
    "The orchestra tuned their instruments before the concert began.",
    "Volcanic ash can travel thousands of kilometres in the upper atmosphere.",
    "A pair of herons nested on the island in the lake.",
    "The old lighthouse was painted red and white in 1921.",
    "Bamboo can grow almost a metre in a single day.",
    "The chess club meets on the second floor of the library.",
    "今天的天气预报说傍晚会有阵雨。",
    "这座古桥建于明朝，至今仍在使用。",
    "熊猫主要以竹子为食，每天要吃很多。",
    "博物馆下周将展出一批青铜器。",
    "秋天的时候，山上的枫叶都变红了。",
    "这首民歌在当地流传了几百年。",
    "海边的渔民清晨出海捕鱼。",
    "火车站旁边新开了一家面包店。",
    "围棋起源于中国，已有几千年的历史。",
    "这片沙漠里一年难得下一场雨。",
)

# The fillers of format/noise.py that a model reads as replies, English and Chinese: a chunk
# matches by meaning only when it is closer to the query than the closest of these.
FILLER_TEXTS = (
    "ok", "okay", "sure", "yes", "no", "thanks", "thank you", "cool", "nice", "great",
    "got it", "lol", "haha", "hmm", "hello", "bye", "good night",
    "好的", "好", "嗯", "哦", "谢谢", "收到", "知道了", "明白了", "没问题", "是的", "哈哈",
    "晚安", "再见",
)  # fmt: skip
