"""Statements in other languages than English: the words that forbid and oblige in each, and which language a
text is written in.

A user who writes "Nunca altere o esquema de produção" or "프로덕션 데이터베이스는 읽기 전용으로 유지하세요" states
a rule as surely as one who writes "never change the production schema". The miner reads English by its
markers ("never", "must", "let's"); here are the same markers for the languages agents are most often spoken
to in, so such a statement is an item too. They are each language's common words for forbidding and obliging,
not any session's sentences.

An item in one language cannot be looked for in a summary written in another: none of its words can be
there, so "lost" would say only that the summary is in English. `same_language` tells the matcher when a
summary can be judged for an item at all. A language is told by its script (Hangul, kana, Han, Cyrillic,
Arabic…) or, in Latin script, by which language's commonest words a text uses most; a text too short to tell
is taken to be in any language.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

from inspector.config import DEFAULT_CONFIG

FOREIGN_PROHIBITION = re.compile(
    r"\b(?:nunca|jamais|jamás|proibido|prohibido|interdit|niemals|verboten|auf keinen fall|vietato|никогда|нельзя|"
    r"запрещено)\b|"
    r"\bnão\s+(?:\w+\s+)?(?:deve|pode|mexa|altere|toque|apague|remova|use|faça|mude|delete)\w*|"
    r"\bno\s+(?:\w+\s+)?(?:debe|puede|toques|cambies|borres|uses|hagas|modifiques|elimines)\w*|"
    r"\bne\s+(?:\w+\s+)?(?:touche|modifie|supprime|change|utilise|fais|pousse)\w*\s+(?:\w+\s+)?pas\b|"
    r"\bnicht\s+(?:\w+\s+)?(?:ändern|löschen|anfassen|verwenden|benutzen|pushen|committen|machen)\b|"
    r"\bnon\s+(?:\w+\s+)?(?:toccare|cambiare|modificare|usare|fare|cancellare|eliminare)\b|"
    r"\bне\s+(?:трогай|меняй|удаляй|используй|делай|коммить|пушь)\w*|"
    r"절대|금지|하지\s?마|마세요|안\s?됩니다|안\s?돼|말아\s?주|"
    r"絶対に|しないで|禁止|してはいけない|ないでください|"
    r"不要|绝不|絕不|不能|不可以|千万别|千萬別",
    re.IGNORECASE,
)
"""Words that forbid, by language: Portuguese, Spanish, French, German, Italian, Russian, Korean, Japanese,
Chinese. A negation counts only with a verb of changing or doing after it ("não altere", "nicht löschen"):
"no" and "non" alone are everywhere in those languages."""
FOREIGN_OBLIGATION = re.compile(
    r"\b(?:deve|devem|precisa|tem que|sempre|obrigatório|certifique-se|debe|deben|hay que|tiene que|siempre|"
    r"obligatorio|asegúrate|doit|doivent|il faut|toujours|obligatoire|assurez-vous|muss|müssen|immer|unbedingt|"
    r"erforderlich|stelle sicher|bisogna|obbligatorio|assicurati|должен|должны|нужно|необходимо|всегда|"
    r"обязательно)\b|"
    r"반드시|꼭|항상|해야|하세요|해\s?주세요|하십시오|유지해|줘|부탁|"
    r"必ず|常に|してください|すること|しなければ|て(?:ほしい|欲しい)|お願い|(?:(?<!てい)(?<!でい)て|(?<=ん)で)(?:ね|よ|おいて|くれ)?[。！!]*\s*$|"
    r"必须|必須|一定要|务必|務必|总是|總是|(?<!申)[请請](?!求)|[帮幫]我|麻[烦煩]",
    re.IGNORECASE | re.MULTILINE,
)
"""Words that oblige or request, by language, in the same languages: "deve", "il faut", "muss", "반드시",
"해야", the polite imperative "-하세요", "してください", "必须"; and the plain requests people type to an agent:
Korean "-줘" ("고쳐줘"), Japanese "-てほしい", "お願い" and a sentence ending in the te-form ("リリースして",
"やってね", "選んで"; not "-ていて" or a "-で" after no "ん", a sentence left going: "エラーが出ていて", "使うことで"),
Chinese "请" (not "请求", a request as a noun: "HTTP请求") and "帮我"."""

_COMMON_WORDS = {
    "en": "the and is to of that it with for not this be are we you was have on in".split(),
    "pt": "os as de que não um uma para com do da em no na dos das se ao".split(),
    "es": "el la los las de que no es un una para con del en por se lo".split(),
    "fr": "le les de des que ne pas est un une pour avec du en et la je".split(),
    "de": "der die das und ist nicht zu mit ein eine für den dem auf ich es".split(),
    "it": "il lo gli le di che non un una per con del della la si sono".split(),
}
"""The commonest words of each Latin-script language this module reads, those that tell it from the others
("não" from "no", "der" from "de"); shared ones ("de", "la") count for each. No one-letter word ("e", "o",
"y", "é"): logs and code are full of them."""
_WORD = re.compile(r"[^\W\d_]+")
_ASCII_LETTERS = re.compile(r"[A-Za-z]+")
"""`_WORD` in ASCII text, where it is these letters: a class Python's `re` tests without Unicode's tables, in half the
time (a summary's language is told once per summary, 364 times in a 100 MB session of them)."""
_SCRIPTS = (("HANGUL", "ko"), ("HIRAGANA", "ja"), ("KATAKANA", "ja"), ("CJK", "zh"), ("CYRILLIC", "ru"),
            ("ARABIC", "ar"), ("HEBREW", "he"), ("DEVANAGARI", "hi"), ("THAI", "th"), ("GREEK", "el"))  # fmt: skip
"""Scripts by the start of their Unicode character names, each with the language a text in it is taken to be
in (kana before Han: Japanese writes both)."""


_BEYOND_LATIN = re.compile("[^\x00-\u024f]")
"""A character past the Latin blocks, the only ones whose script is counted: most of a log is ASCII, and looking up
every character's Unicode name was most of telling a 20 KB summary's language."""


def _script_language(text: str) -> str | None:
    if text.isascii():
        return None  # Latin letters only, if any
    counts: Counter[str] = Counter()
    for char in _BEYOND_LATIN.findall(text):
        if not char.isalpha():
            continue
        name = unicodedata.name(char, "")
        language = next((lang for script, lang in _SCRIPTS if name.startswith(script)), None)
        if language is not None:
            counts[language] += 1
    if not counts:
        return None
    if counts["ja"]:  # Japanese writes Han and kana together
        counts["ja"] += counts.pop("zh", 0)
    language, count = counts.most_common(1)[0]
    letters = sum(1 for c in text if c.isalpha())
    return language if count >= DEFAULT_CONFIG.script_share * letters else None


def language_of(text: str) -> str | None:
    """The language `text` is written in, or None when it cannot be told (too short, or no language here)."""
    by_script = _script_language(text)
    if by_script is not None:
        return by_script
    found = _ASCII_LETTERS.findall(text.lower()) if text.isascii() else map(str.lower, _WORD.findall(text))
    words = Counter(found)
    scores = {lang: sum(words[w] for w in common) for lang, common in _COMMON_WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] < DEFAULT_CONFIG.language_min_words or sorted(scores.values())[-2] == scores[best]:
        return None
    return best


@lru_cache(maxsize=4096)
def statement_language(statement: str) -> str | None:
    """A statement's language, cached: each is asked once per summary it is looked for in, and is short. Told from
    its words, not the names it cites (`_NEUTRAL`): "SUPERUSER_EMAILS と同じ." is Japanese, though most of its
    letters are the name's."""
    return language_of(_NEUTRAL.sub(" ", statement))


_NEUTRAL = re.compile(r"[!-~]*[_/\\.\d][!-~]*[A-Za-z0-9/]|(?<![A-Za-z])[A-Z][A-Z0-9]+(?![A-Za-z])")
"""A name any language cites as it is, in ASCII: an identifier with an underscore or a digit, a path, an address, a
dotted name, an acronym (`SUPERUSER_EMAILS`, `src/app.ts`, `GA4`, `CLI`). Only ASCII: Japanese and Chinese write no
spaces, and a run of their text is no name however many digits it holds ("ティア1がマスターデータ…")."""


def same_language(statement: str, summarised: str | None) -> bool:
    """Can a summary written in `summarised` (its `language_of`) be judged for `statement`: both in one
    language, or either's language unknown?"""
    said = statement_language(statement)
    return said is None or summarised is None or said == summarised


__all__ = ["FOREIGN_OBLIGATION", "FOREIGN_PROHIBITION", "language_of", "same_language", "statement_language"]
