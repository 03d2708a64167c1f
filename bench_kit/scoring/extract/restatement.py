"""A statement restating a yes/no question answers it: "Is the function convex?" ->
"The function is (not) convex."; used by `bench_kit.scoring.extract.yesno` and the
option-statement reader."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.question_asked import asked

# "No doubt" / "no question" say "certainly", "No problem" / "no worries" are courtesy.
NOT_NO = r"(?!\s+(?:doubt|question|problem|worries)\b)"
# A restatement of the question answers it: "Is the function convex?" -> "The function is
# (not) convex." Every content word of the question must be in one sentence of the response.
WORDS = re.compile(r"[a-z0-9]+")
_FUNCTION_WORDS = frozenset(
    "is are was were be been do does did have has had the a an this that these those there it "
    "its of in on at to for from by with than as and or image picture shown figure based can could any "
    "really actually ever being "
    "will would shall should may might according then".split())
# Comparisons restated with their direction: "Is X less than Y?" -> "X is less than Y" (yes),
# "X is greater than / equal to Y" (no), "There are more Y than X" (yes: the sides swapped).
_MORE = frozenset("greater more larger bigger higher longer taller older heavier wider".split())
_LESS = frozenset("less fewer smaller lower shorter younger lighter narrower".split())
_EQUAL = frozenset("equal same".split())
_COMPARATIVES = _MORE | _LESS | _EQUAL
NEGATORS = frozenset("not no never neither nor t".split())  # "isn't" -> "isn", "t"
_CLAUSE = re.compile(r"[,;:]")
SENTENCE = re.compile(r"(?:[^.!?\n]+|\.(?=\d))(?:[^.!?\n]*\.(?=\d))*[^.!?\n]*")  # ("0.01": no break)
# (not the first word of a compound: "a no-entry sign", "not-so-subtly"; but "no-one" denies)
DENIAL = re.compile(rf"\b(?:not|cannot|no{NOT_NO}|never|neither|nor|none|nothing|nobody)\b"
                    r"(?!-(?!one\b)[A-Za-z])|n't\b", re.I)
# ("not just a cat but also a dog" adds, it does not contrast)
TENTATIVE = re.compile(r"\b(?:if|whether|determine|unless|question|while|whereas|but(?!\s+also\b)"
                        r"|complex|nuanced|ambiguous|depends?)\b", re.I)
# A question asking whether something is ever / sometimes / in some cases so is not denied by
# what usually holds ("generally not", "in general … not", "is not typically magnetic")
SOMETIMES = re.compile(r"\b(?:ever|sometimes|some\s+(?:instances|cases|circumstances|situations)"
                       r"|in\s+any\s+(?:case|circumstances?)|at\s+times|occasionally)\b", re.I)
USUALLY = re.compile(r"\b(?:generally|in\s+general|typically|usually|normally|mostly|most\s+of\s+the\s+time"
                     r"|under\s+normal\s+circumstances|in\s+most\s+cases)\b", re.I)
# A hedged negation ("it may not help") qualifies a claim; it does not deny it.
# ("could not" denies: "I could not find any cat.")
HEDGE_BEFORE = re.compile(r"\b(?:may|might)(?:\s+or\s+(?:may|might))?\s*$", re.I)

def stem(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]  # "busses" -> "buss"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """The lower-cased, stemmed words of `text` that are not function words."""
    return {stem(w) for w in WORDS.findall(text.lower()) if w not in _FUNCTION_WORDS}


def comparisons(text: str) -> list[tuple[int, set[str], set[str], bool]]:
    """Every comparison in the clauses of `text`: (+1 more / -1 less / 0 equal, content
    words of the compared side, content words after "than" / "to" / "as" up to the next
    comparative, negated: a negator within the five words before the comparative, or after
    it in its clause when no other side is named: "A higher price does not mean …"). A later
    comparative in a clause shares the compared side of the one before it ("X is bigger
    than Y and smaller than Z": X is smaller), plus its own words before "than"."""
    found = []
    for clause in _CLAUSE.split(text.lower()):
        words = WORDS.findall(clause)
        side = None  # the compared side of the clause's previous comparative
        for index, word in enumerate(words):
            if word not in _COMPARATIVES:
                continue
            sign = 1 if word in _MORE else -1 if word in _LESS else 0
            rest = words[index + 1:]
            split = next((i for i, w in enumerate(rest) if w in ("than", "to", "as")), len(rest))
            end = next((i for i, w in enumerate(rest[split:]) if w in _COMPARATIVES), None)
            after = rest[split:] if end is None else rest[split:split + end]
            negated = any(w in NEGATORS for w in words[max(0, index - 5):index]
                          # ... or, with no other side named, after it ("A higher price does not mean …")
                          + (rest[:next((i for i, w in enumerate(rest) if w in _COMPARATIVES), len(rest))]
                             if split == len(rest) else []))
            lead = words[:index] if side is None else []
            side = (side or set()) | content_words(" ".join(lead + rest[:split])) - _COMPARATIVES
            found.append((sign, side, content_words(" ".join(after)) - _COMPARATIVES, negated))
    return found


def _restated_comparison(sentence: str,
                         asked: tuple[int, set[str], set[str], bool]) -> str | None:
    """"yes"/"no" when `sentence` states the comparison the question asks about (`asked`,
    its first from `comparisons`), in the same or another direction (sides swapped:
    direction reversed); of several comparisons in the sentence, the one whose sides best
    match the question's (the first of those matching as well), and None when two that
    match as well both name their other side ("than …") and answer differently: the
    sentence states the comparison both ways. ("The smaller picture is below the larger
    picture." names no other side: the first.)"""
    sign, left, right, _ = asked
    best, answer = 0, None
    stated: set[str] = set()  # the best answers that name their other side
    for said_sign, said_left, said_right, negated in comparisons(sentence):
        kept = len(left & said_left) + len(right & said_right)
        swapped = len(left & said_right) + len(right & said_left)
        if max(kept, swapped) < best or not max(kept, swapped):
            continue
        if said_sign == 0 or sign == 0:  # "X is equal to Y" to "Is X greater than Y?"
            same = said_sign == sign
        else:
            same = (said_sign == sign) != (swapped > kept)
        said = "yes" if same != negated else "no"
        if max(kept, swapped) > best:
            best, answer, stated = max(kept, swapped), said, set()
        if said_right:
            stated.add(said)
    return None if len(stated) > 1 else answer


_NOT_JUST = re.compile(r"\s+(only|just)\b", re.I)
_HOW_HARD = re.compile(r"\s+easy\b", re.I)  # "… is not easy": how hard, not whether (a hedge)


def adds(clause: str, denial: re.Match, question: str) -> bool:
    """Whether `denial` opens "not just / not only", which adds ("not just a cat but also a
    dog"), unless the question (its lower-cased words) asks about the word itself ("Is there
    just one cat?" -> "There is not just one cat" is no)."""
    found = _NOT_JUST.match(clause, denial.end())
    return found is not None and f" {found.group(1).lower()} " not in f" {question} "


def _denial_about(sentence: str, wanted: set[str], question: str = "") -> str | None:
    """"no" when a clause of `sentence` that names something the question asks about
    (or nothing else) holds a negation ("The cat is black, and there is no dog." denies
    nothing about the cat), "hedged" when that negation is hedged ("may not"), None otherwise.
    A negation the question itself holds, with the word after it ("… for which there is no
    objective evidence"), is an echo of the question, not a denial."""
    for clause in _CLAUSE.split(sentence):
        denied = next((found for found in DENIAL.finditer(clause)
                       if not echoes_question(clause, found, question)
                       and not adds(clause, found, question)), None)
        said = {word for word in content_words(clause) if len(word) > 1} - NEGATORS \
            if denied else set()
        if denied and (said & wanted or not said):  # "…: (B) No." names nothing else
            # (hedged too: "Learning to swim is not easy for adults." to "Can adults learn …?")
            return "hedged" if HEDGE_BEFORE.search(clause, 0, denied.start()) or (
                _HOW_HARD.match(clause, denied.end()) and " easy " not in f" {question} ") else "no"
    return None


# A negated negative word says the positive one (litotes): "not a bad idea" is a good idea,
# "not illegal" legal -- unless the question asks about the negative word itself ("Is it
# illegal …?" -> "It is not illegal." is "no").
_OPPOSITE = {"bad": "good", "wrong": "right", "illegal": "legal", "impossible": "possible",
             "unsafe": "safe", "uncommon": "common", "unlikely": "likely",
             "incorrect": "correct", "unhealthy": "healthy", "unreasonable": "reasonable",
             "irrational": "rational"}
# "The belief can be true or false …": a word and its opposite offered together state neither
_EITHER_WAY = re.compile(r"\b(?:" + "|".join(rf"{a}\s+or\s+{b}|{b}\s+or\s+{a}" for a, b in
                                              [*_OPPOSITE.items(), ("false", "true")]) + r")\b", re.I)
# "not unlikely" reads "likely": a hedge, not a restatement's yes
_LIKELY = re.compile(r"(?<!un)likely\b", re.I)
# ... and so is "unlikely" with no negation after it ("It is unlikely that Sainsbury's could
# buy Tesco without …" is no restatement's yes; "… unlikely that otters would eat spiders
# since they are not …" is read as before)
_UNLIKELY = re.compile(r"\bunlikely\b(?![^.!?\n]{0,200}?(?:\b(?:not|no|never)\b|n't\b))", re.I)
LITOTES = re.compile(r"\b(?:not|never)\s+(?:necessarily\s+|entirely\s+)?(?:(a|an|so|too|that|at\s+all)\s+)?("
                     + "|".join(_OPPOSITE) + r")\b", re.I)


# "not right" to "Is it wrong …?": a positive word negated says the negative one asked about
_POSITIVE_NEGATED = re.compile(r"\b(?:not|never)\s+(?:(?:a|an)\s+)?("
                               + "|".join(set(_OPPOSITE.values())) + r")\b", re.I)


def negates_opposite(text: str, at: int, wanted: set[str]) -> bool:
    """Whether the negation at offset `at` of `text` negates the opposite of a negative word
    the question asks about ("It is not right to pirate." to "Is pirating wrong?")."""
    found = _POSITIVE_NEGATED.match(text, at)
    return found is not None and any(
        _OPPOSITE.get(word) == found.group(1).lower() for word in wanted)


def litotes_asked(match: re.Match, wanted: set[str]) -> bool:
    """Whether the question asks about the negative word of a `LITOTES` match itself."""
    return stem(match.group(2).lower()) in wanted


def _positive(sentence: str, wanted: set[str]) -> str:
    """`sentence` with each litotes the question does not ask about read as its positive
    word ("… is not a bad idea" -> "… is a good idea")."""
    if "not" not in sentence.lower() and "never" not in sentence.lower():
        return sentence
    return LITOTES.sub(lambda m: m.group() if litotes_asked(m, wanted) else
                       f"{m.group(1) or ''} {_OPPOSITE[m.group(2).lower()]}", sentence)


_WORD_ANY_CASE = re.compile(r"[a-z0-9]+", re.I)


def echoes_question(text: str, denial: re.Match, question: str) -> bool:
    """Whether the question (its lower-cased words joined by spaces) holds `denial` with the
    word that follows it in `text` ("… for which there is no objective evidence")."""
    following = _WORD_ANY_CASE.search(text, denial.end(), denial.end() + 40)
    return following is not None and \
        f"{denial.group().lower()} {following.group().lower()}" in question


def restated(text: str, question: str) -> str | None:
    """"yes"/"no" when a sentence of `text` restates `question` as a statement (negated:
    "no"); None otherwise."""
    wanted = content_words(asked(question))
    if len(wanted) < 2:
        return None
    compared = wanted - _COMPARATIVES if wanted & _COMPARATIVES else None
    asked_comparison = comparisons(question)[:1] if compared is not None else []  # parsed once
    stated = None
    for match in SENTENCE.finditer(text):
        if text.startswith("?", match.end()):
            continue  # the question echoed, not answered
        said = match.group()
        lowered = said.lower()  # (cheap substring tests before the rarer patterns)
        if "but not" in lowered:
            said = _BUT_NOT.sub("", said, count=1)
        sentence = _positive(_after_but(said, wanted), wanted)
        if TENTATIVE.search(sentence) or _LIKELY.search(sentence) \
                or (" or " in lowered and _EITHER_WAY.search(sentence)) \
                or ("unlikely" in lowered and _UNLIKELY.search(sentence)) \
                or (("that" in lowered or '"' in said or "“" in said) and _reported(sentence)):
            continue
        have = _with_bases(content_words(sentence))
        if compared is not None and compared <= have and have & _COMPARATIVES:
            if asked_comparison:
                stated = _restated_comparison(sentence, asked_comparison[0]) or stated  # the last one
        elif stated is None and (_antonym(have, wanted) or _unprefixed(have, wanted)):
            # "The door is closed." to "open?" and "Queen bees are necessary for growing apples."
            # to "… unnecessary …?": no; "… are not necessary …": yes; "… may not be necessary …",
            # "The store might be closed …", "… drinkable only after boiling": hedged, no answer
            denied = _denial_about(sentence, have & wanted, " ".join(WORDS.findall(asked(question).lower())))
            return None if denied == "hedged" or HEDGED_STATE.search(sentence) \
                else "yes" if denied else "no"
        elif stated is None and (wanted <= have or _prefixed(have, wanted)):
            words = " ".join(WORDS.findall(asked(question).lower()))
            if _only_negative(sentence, wanted, words) and all(  # (a negation echoing the question's is none)
                    echoes_question(sentence, found, words) for found in DENIAL.finditer(sentence)):
                return "no"  # "… considered irrational" / "a non-violent game" to "rational?" / "violent?"
            if wanted <= have:
                if any(_ANTONYMS.get(word, "") in have for word in wanted):
                    return _opposite_state(sentence, wanted)  # "… closed and the door is open"
                if _set_aside(sentence, wanted, question):
                    return "no"  # "… a playful activity rather than a violent one" to "violent?"
                denied = _denial_about(sentence, wanted, words)
                if denied == "no" and USUALLY.search(sentence) and SOMETIMES.search(question):
                    return None  # "Steel is not generally magnetic." to "Can steel ever be magnetic?"
                return None if denied == "hedged" else denied or "yes"  # hedged: "may not be"
    return stated


_SAID_WITH_IN = frozenset("migrant valuable flammable habitable".split())  # (not "information")
_GERUND_BASE = 6  # letters a word ending in "ing" needs to be read as a verb's form too
# ... but not a noun or preposition ending so ("evening" is no form of "even"; "string": no vowel before "ing")
_NOT_GERUNDS = frozenset("evening morning ceiling during nothing something anything everything pudding sibling "
                         "lightning herring awning clothing earring darling sterling viking duckling".split())
_VOWEL = re.compile(r"[aeiouy]")


def _with_bases(words: set[str]) -> set[str]:
    """`words` with the verb each "-ing" word may be a form of ("driving" -> "drive",
    "believing" -> "believe", "running" -> "run"), so "Driving without a license is illegal."
    restates "Is it legal to drive without a license?"; and with the word an "in"/"im" that
    says the word itself before ("an immigrant" is a migrant, "invaluable" valuable)."""
    bases: set[str] = set()
    for word in words:
        if len(word) >= _GERUND_BASE and word.endswith("ing") and word not in _NOT_GERUNDS \
                and _VOWEL.search(word, 0, len(word) - 3):
            root = word[:-3]
            bases.update((root, root + "e", root[:-1] if root[-1] == root[-2] else root))
        elif word[:2] in ("in", "im") and word[2:] in _SAID_WITH_IN:
            bases.add(word[2:])
    return words | bases if bases else words


# A claim reported, not made: "The assertion that "native Australians were prisoners" is …",
# "The idea that X is a myth."
_REPORTED = re.compile(r"\b(?:idea|claim|assertion|statement|notion|belief|myth|misconception|rumou?r"
                       r"|theory|saying)\s+(?:that\b|[\"“])", re.I)


# ... unless the sentence endorses it: "The evidence strongly supports the theory that …"
_ENDORSED = re.compile(r"\b(?:supports?|supported|confirms?|confirmed|proves?|proved|proven|validates?"
                       r"|verifies|verified|corroborates?|backs\s+up)\s+(?:the|this)\s+$", re.I)


def _reported(sentence: str) -> bool:
    """Whether `sentence` reports a claim without endorsing it (`_REPORTED`, `_ENDORSED`)."""
    found = _REPORTED.search(sentence)
    return found is not None and not _ENDORSED.search(sentence, max(0, found.start() - 30), found.start())


# "in"/"im" make ordinary words as often as opposites ("inside", "indoor", "import",
# "immigrant", "intense", "invaluable"): only before a word of 5 letters or more that is
# not one of those.
_NOT_NEGATED_BY_IN = frozenset("migrant tense valuable flammable famous habitable habit vested "
                               "formation".split())


def negative_prefixes(word: str) -> tuple[str, ...]:
    """The negative prefixes that make the opposite of `word` ("ir" + "rational")."""
    if len(word) < 5 or word in _NOT_NEGATED_BY_IN:
        return ("non", "non-", "un", "ir", "il")
    return ("non", "non-", "un", "ir", "il", "im", "in")


def _prefixed(have: set[str], wanted: set[str]) -> bool:
    """Whether `have` holds every word of `wanted` but one, which it holds with a negative
    prefix ("irrational" for "rational")."""
    missing = wanted - have
    return len(missing) == 1 and any(prefix + word in have for word in missing
                                     for prefix in negative_prefixes(word))


# A state said with a modal or a condition ("might be closed", "drinkable only after boiling")
HEDGED_STATE = re.compile(r"\b(?:may|might|could|perhaps|possibly|maybe|probably"
                           r"|only\s+(?:after|if|when|once|with|under))\b", re.I)
# "a playful game rather than a violent one", "instead of …", "far from (being) violent"
_RATHER = re.compile(r"\b(?:rather\s+than|instead\s+of|far\s+from)\b", re.I)


# The thing set aside ends at a clause word: "instead of soda when exercising" sets aside soda
_SET_ASIDE_END = re.compile(r"[,;:]|\b(?:when|while|if|because|since|as|for|during|to|in|at|on|by"
                            r"|with|after|before|and|but|so)\b", re.I)
# "far from the airport", "far from Earth": a distance, not a contrast
_FAR_FROM_PLACE = re.compile(r"[Ff]ar\s+from\s+(?:the\b|[A-Z]|\d)")  # (case matters)


def _set_aside(sentence: str, wanted: set[str], question: str = "") -> bool:
    """Whether `sentence` names a word the question asks about only in the few words right
    after "rather than" / "instead of" / "far from" (the thing set aside: "The cat is black
    rather than white." still restates "Is the cat black?"). Not when the question holds the
    phrase itself ("Is the result far from perfect?") or "far from" names a place ("far from
    the airport", "far from Earth")."""
    found = _RATHER.search(sentence)
    if found is None or _RATHER.search(question) \
            or _FAR_FROM_PLACE.match(sentence, found.start()):
        return False
    aside = sentence[found.end():found.end() + 60]
    end = _SET_ASIDE_END.search(aside, 1)
    aside = aside[:end.start()] if end else aside
    return bool(content_words(aside) & wanted - content_words(sentence[:found.start()]))


# States that exclude each other: a restatement with the other one is no ("The door is
# closed." to "Is the door open?"; not "full" / "empty": "half empty" is "half full")
_ANTONYMS = {"open": "closed", "closed": "open", "alive": "dead", "dead": "alive",
             "present": "absent", "absent": "present", "wet": "dry", "dry": "wet"}


_PART = re.compile(r"[,;]|\b(?:and|but|although|though|while|whereas)\b", re.I)


def _opposite_state(sentence: str, wanted: set[str]) -> str | None:
    """"no" when `sentence` names a state the question asks about and its opposite, and every
    part of it naming the question's subject holds the opposite only, with no negation ("The
    window is closed and the door is open." / "The road looks dry now, although it was wet
    earlier." to "Is the window open?" / "Is the road wet?"); "yes" when they all hold the
    asked state only ("The door is open and the window is closed."); None otherwise."""
    states = [word for word in wanted if word in _ANTONYMS]
    if len(states) != 1 or _ANTONYMS[states[0]] in wanted:
        return None  # ("Is the door open or closed?" asks no yes/no)
    state = states[0]
    subject = wanted - {state}
    said = set()
    for part in _PART.split(sentence):
        words = content_words(part)
        if subject and subject <= words:
            alone = not DENIAL.search(part) and (_ANTONYMS[state] in words) != (state in words)
            said.add(("opposite" if _ANTONYMS[state] in words else "same") if alone else "other")
        elif (elliptic := _ELLIPTIC.match(part)) and elliptic.group(1).lower() == state:
            said.add("other")  # "… closed on Sundays and open the rest of the week", "… but is alive now"
    return "no" if said == {"opposite"} else "yes" if said == {"same"} else None


# a part of a sentence that goes on about the same subject without naming it: "and open the
# rest of the week", "but it is alive now" (not a past "it was wet earlier")
_ELLIPTIC = re.compile(r"\s*(?:(?:it|they|he|she)\s+)?(?:(?:is|are|will\s+be)\s+|(?:it|they)(?:'s|’s|'re|’re)\s+)?"
                       r"([A-Za-z]+)")


def _antonym(have: set[str], wanted: set[str]) -> bool:
    """Whether `have` holds every word of `wanted` but one, whose opposite state it holds."""
    missing = wanted - have
    return len(missing) == 1 and _ANTONYMS.get(next(iter(missing)), "") in have


def _unprefixed(have: set[str], wanted: set[str]) -> bool:
    """Whether `have` holds every word of `wanted` but one, a word with a negative prefix
    that it holds without it ("necessary" for "unnecessary", "legal" for "illegal")."""
    missing = wanted - have
    return len(missing) == 1 and any(
        word.startswith(prefix) and word[len(prefix):] in have
        and prefix in negative_prefixes(word[len(prefix):])
        for word in missing for prefix in ("non-", "non", "un", "ir", "il", "im", "in"))


def _only_negative(sentence: str, wanted: set[str], words: str = "") -> bool:
    """Whether a word the question asks about is in `sentence` only with a negative prefix
    ("non-violent", "irrational"; not "non-essential travel" to "Is the border open?"), and
    the question (its lower-cased words, `words`) does not hold it so itself ("Is
    non-essential travel restricted?")."""
    lowered = sentence.lower()
    for word in wanted:
        if len(word) <= 3:
            continue
        prefixed = re.search(rf"\b({'|'.join(negative_prefixes(word))}){re.escape(word)}\b", lowered)
        if prefixed and not re.search(rf"(?<![\w-]){re.escape(word)}\b", lowered) \
                and f"{prefixed.group(1).rstrip('-')} {word}" not in words \
                and f"{prefixed.group(1)}{word}" not in words:
            return True
    return False


_BUT = re.compile(r",\s*but\s+")
_WHETHER_FIRST = re.compile(r"\s*whether\b", re.I)  # a sentence opening on the question asked again
# "A person can go days with no food, but not with no water.": a contrast with no verb of its
# own ending the sentence states nothing of what the sentence says before it; cut off
_BUT_NOT = re.compile(r",\s*but\s+not\s+(?![^.!?\n,;]*\b(?:is|are|was|were|be|do|does|did|can|could"
                      r"|will|would|has|have|had|should|may|might|must)\b)[^.!?\n,;]{1,80}\Z", re.I)
_HEDGED = re.compile(r"\b(?:should|may|might|could|likely|probably|possibly|perhaps|most)\b", re.I)


def _after_but(sentence: str, wanted: set[str]) -> str:
    """The clause after "X, but" when X names nothing the question asks about ("It might
    not be obvious, but the man is wearing a hat.") or only asks it again as a "whether"
    clause ("Whether or not the cat is black is hard to see, but the cat is black."): a
    concession before the statement; `sentence` itself otherwise."""
    cut = _BUT.search(sentence)
    if cut is None or (content_words(sentence[:cut.start()]) & wanted
                       and not _WHETHER_FIRST.match(sentence)) \
            or _HEDGED.search(sentence, cut.end()):
        return sentence  # (a hedged claim after it is still a hedge: "…, but 24 should hit")
    return sentence[cut.end():]
