"""Raw text to tokens with offsets: treebank conventions, languages, sentence splits, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from chaintag.errors import InputError
from chaintag.text.tokenize import LANGUAGES, pretokenized, split_text


def _sentences(text, lang="en"):
    doc = split_text(text, lang)
    for t in doc.tokens:
        assert text[t.start:t.end] == t.text
    return doc.sentence_tokens()


def test_english_follows_the_treebank_conventions():
    assert _sentences("It's 3pm. The (GR) binds T cells, e.g. in vivo. I don't know.") == [
        ["It", "'s", "3pm", "."], ["The", "(", "GR", ")", "binds", "T", "cells", ",", "e.g.", "in", "vivo", "."],
        ["I", "do", "n't", "know", "."]]


def test_abbreviations_keep_their_period_and_do_not_end_the_sentence():
    assert _sentences("Dr. Smith met Mr. Brown in the U.S. yesterday.") == [
        ["Dr.", "Smith", "met", "Mr.", "Brown", "in", "the", "U.S.", "yesterday", "."]]


def test_hyphens_urls_numbers_and_emails_stay_whole():
    assert _sentences("A well-known site: https://example.com/a?b=1 costs $3.50, 1,000 at 12:30 (a.b@c.org).") == [
        ["A", "well-known", "site", ":", "https://example.com/a?b=1", "costs", "$", "3.50", ",", "1,000", "at",
         "12:30", "(", "a.b@c.org", ")", "."]]


def test_sentence_ends_questions_quotes_and_blank_lines():
    assert _sentences('Is it? Yes! He said "no." Then left\n\nA new paragraph') == [
        ["Is", "it", "?"], ["Yes", "!"], ["He", "said", '"', "no", ".", '"'], ["Then", "left"],
        ["A", "new", "paragraph"]]


def test_dutch_and_spanish_keep_apostrophes_and_accents():
    assert _sentences("Dat is 's avonds, met auto's.", "nl") == [["Dat", "is", "'s", "avonds", ",", "met", "auto's", "."]]
    assert _sentences("El Sr. García llegó tarde. ¿Qué pasó?", "es")[0][:4] == ["El", "Sr.", "García", "llegó"]
    assert _sentences("It's auto's.", "en") == [["It", "'s", "auto", "'s", "."]]


def test_offsets_survive_crlf_tabs_nbsp_emoji_and_cjk():
    text = "Caf\u00e9\u00a0au\tlait\r\nna\u00efve 😀 東京 \u201cquoted\u201d."
    doc = split_text(text)
    assert all(text[t.start:t.end] == t.text for t in doc.tokens)
    assert [t.text for t in doc.tokens] == ["Café", "au", "lait", "naïve", "😀", "東京", "\u201c", "quoted", "\u201d", "."]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abA.,'-?! \n\t\u00e9\u00a0\"(3)\u20ac%\U0001F600\u3002\uff01\x1c\u2029\x0c")),
               max_size=60),
       st.sampled_from(LANGUAGES))
def test_tokens_cover_every_non_space_character_once(text, lang):
    doc = split_text(text, lang)
    covered = "".join(text[t.start:t.end] for t in doc.tokens)
    assert all(text[t.start:t.end] == t.text and t.text.strip() == t.text and t.text for t in doc.tokens)
    assert covered == "".join(c for c in text if not c.isspace())
    assert [t.start for t in doc.tokens] == sorted(t.start for t in doc.tokens)
    assert all(a < b for a, b in doc.sentences)


def test_an_unknown_language_is_refused_with_the_choices():
    with pytest.raises(InputError, match="en, es, nl, de"):
        split_text("Hi.", "xx")


def test_pretokenized_text_keeps_lines_as_sentences_and_offsets():
    text = "The dog barks .\n\n  It 's  late\r\n"
    doc = pretokenized(text)
    assert doc.sentence_tokens() == [["The", "dog", "barks", "."], ["It", "'s", "late"]]
    assert all(text[t.start:t.end] == t.text for t in doc.tokens)
    assert doc.to_dict()["tokens"][4] == {"text": "It", "start": 19, "end": 21, "label": None}


def test_a_period_after_a_number_ends_the_sentence_before_a_capital_or_an_opening_mark():
    assert _sentences("It cost $3.50. I left.") == [["It", "cost", "$", "3.50", "."], ["I", "left", "."]]
    assert _sentences("Son las 3.30h. ¿Qué pasa? ¡Nada!", "es") == [
        ["Son", "las", "3.30h", "."], ["¿", "Qué", "pasa", "?"], ["¡", "Nada", "!"]]
    # an abbreviation's period, or a lower-case word after the period, does not split
    assert _sentences("The U.S. Army paid 3.50 . and more.") == [
        ["The", "U.S.", "Army", "paid", "3.50", ".", "and", "more", "."]]


def test_words_with_a_capital_inside_stay_whole_and_clitics_still_split():
    assert _sentences("HeLa cells express FasL, IgH mRNA and NF-kappaB; I don't own an iPhone.") == [
        ["HeLa", "cells", "express", "FasL", ",", "IgH", "mRNA", "and", "NF-kappaB", ";", "I", "do", "n't", "own",
         "an", "iPhone", "."]]


def test_abbreviations_before_commas_and_lower_case_words_keep_their_period():
    assert _sentences("Acme Corp. said it sold plants in Calif., Nev. and Ariz.; profits fell.") == [
        ["Acme", "Corp.", "said", "it", "sold", "plants", "in", "Calif.", ",", "Nev.", "and", "Ariz.", ";",
         "profits", "fell", "."]]
    assert _sentences("He went home. Then he slept.") == [["He", "went", "home", "."], ["Then", "he", "slept", "."]]


def test_lower_case_text_splits_at_periods_that_touch_a_word():
    """'bad. it' kept 'bad.' as one token and one sentence (the short-word abbreviation rule), so text in
    lower case came out as sentences of thousands of tokens; abbreviations keep their period."""
    assert _sentences("the film was bad. it was boring.") == [["the", "film", "was", "bad", "."],
                                                              ["it", "was", "boring", "."]]
    assert _sentences("I saw it.\nthen I left") == [["I", "saw", "it", "."], ["then", "I", "left"]]
    assert _sentences("apples, pears etc. are fruit; see p. 45 vs. fig. 2") == [
        ["apples", ",", "pears", "etc.", "are", "fruit", ";", "see", "p.", "45", "vs.", "fig.", "2"]]


def test_quotes_inside_a_token_combining_marks_and_soft_hyphens():
    assert _sentences('He left."Why?" she asked.')[0][:5] == ["He", "left", ".", '"', "Why"]
    assert _sentences("Cafe\u0301 is nice.") == [["Cafe\u0301", "is", "nice", "."]]
    assert _sentences("\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e") == [
        ["\u0928\u092e\u0938\u094d\u0924\u0947", "\u0926\u0941\u0928\u093f\u092f\u093e"]]
    assert _sentences("\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35") == [["\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35"]]
    assert _sentences("a soft\u00adhyphen") == [["a", "soft\u00adhyphen"]]
    # one-letter abbreviations written together stay one token; initials apart stay apart
    assert _sentences("Das ist z.B. gut, d.h. sch\u00f6n.", "de") == [
        ["Das", "ist", "z.B.", "gut", ",", "d.h.", "sch\u00f6n", "."]]
    assert _sentences("A. B. Smith came.") == [["A.", "B.", "Smith", "came", "."]]


def test_pretokenized_lines_end_at_line_feeds_only():
    """U+2028, U+0085, form feeds and the like inside a line are spaces, not line ends (str.splitlines
    made one line seven sentences)."""
    text = "a b\u2028c\x1cd\u0085e\x0cf\n g h\r\n"
    doc = pretokenized(text)
    assert doc.sentence_tokens() == [["a", "b", "c", "d", "e", "f"], ["g", "h"]]
    assert all(text[t.start:t.end] == t.text for t in doc.tokens)


def test_list_items_titles_numbered_abbreviations_and_chat():
    """Numbered lists came out as '1 .' | 'First item 2 .'; 'pp. 5', 'Rev. Jones' and 'approx. 5' broke
    or split; 'min. at' split after the lower-case rule; 'ok? yes' did not split."""
    assert _sentences("1. First item\n2. Second item\n3. Third item. It has two.") == [
        ["1.", "First", "item"], ["2.", "Second", "item"], ["3.", "Third", "item", "."], ["It", "has", "two", "."]]
    assert _sentences("a) alpha\nb) beta") == [["a)", "alpha"], ["b)", "beta"]]
    assert _sentences("See pp. 5-7, eq. 3 and approx. 5 mg.") == [
        ["See", "pp.", "5-7", ",", "eq.", "3", "and", "approx.", "5", "mg", "."]]
    assert _sentences("Rev. Jones and Prof. Smith met.") == [["Rev.", "Jones", "and", "Prof.", "Smith", "met", "."]]
    assert _sentences("Incubate for 5 min. at room temp. before use. She has a Ph.D. in it.") == [
        ["Incubate", "for", "5", "min.", "at", "room", "temp.", "before", "use", "."],
        ["She", "has", "a", "Ph.D.", "in", "it", "."]]
    assert _sentences("are you ok? yes i am! great.") == [["are", "you", "ok", "?"], ["yes", "i", "am", "!"],
                                                          ["great", "."]]
    assert _sentences('He said "Why?" she asked.') == [["He", "said", '"', "Why", "?", '"', "she", "asked", "."]]


def test_a_period_after_a_symbol_or_an_emoji_is_its_own_and_ends_the_sentence():
    assert _sentences("Der Preis ist 3,50 €. Das ist gut.", "de") == [
        ["Der", "Preis", "ist", "3,50", "€", "."], ["Das", "ist", "gut", "."]]
    assert _sentences("Prices rose 5 %. Then they fell.") == [["Prices", "rose", "5", "%", "."],
                                                                ["Then", "they", "fell", "."]]
    assert _sentences("Mira esto \U0001F600. Vale.", "es") == [["Mira", "esto", "\U0001F600", "."], ["Vale", "."]]
    assert _sentences("The U.S. is big.") == [["The", "U.S.", "is", "big", "."]]  # an abbreviation's period stays


def test_wide_sentence_ends_and_separators_end_sentences():
    assert _sentences("王小明住在北京。他很好。", "es") == [["王小明住在北京", "。"], ["他很好", "。"]]
    assert _sentences("Ana vive en Köln。Ana vive en Zürich！", "es") == [
        ["Ana", "vive", "en", "Köln", "。"], ["Ana", "vive", "en", "Zürich", "！"]]
    assert _sentences("Ana vive en Moscú.\x1cAna vive", "es") == [["Ana", "vive", "en", "Moscú", "."], ["Ana", "vive"]]
    # closing marks after a full-width end stay in its sentence
    # a quotation's 。 before its closing mark and more text ends no sentence: one Japanese sentence
    assert _sentences("彼は「こんにちは。」と言った。", "es") == [["彼は", "「", "こんにちは", "。", "」", "と言った", "。"]]
    assert _sentences('他走了。"你好"。', "es") == [["他走了", "。"], ['"', "你好", '"', "。"]]  # an opening quote
    assert _sentences('He said "OK。" Then left.') == [["He", "said", '"', "OK", "。", '"'], ["Then", "left", "."]]
    for sep in ("\u2029", "\x0c"):
        assert _sentences(f"Zürich{sep}Jürgen kam.", "de") == [["Zürich"], ["Jürgen", "kam", "."]]


@pytest.mark.parametrize("lang, text, sentences", [
    ("de", "Wir treffen uns am 3. Oktober in Köln.", [["Wir", "treffen", "uns", "am", "3.", "Oktober", "in", "Köln", "."]]),
    ("de", "Der 1. FC Köln spielt im 20. Jahrhundert.",
     [["Der", "1.", "FC", "Köln", "spielt", "im", "20.", "Jahrhundert", "."]]),
    ("de", "Das ist gut, bzw. sehr gut. Er wohnt in der Hauptstr. 5 in Berlin.",
     [["Das", "ist", "gut", ",", "bzw.", "sehr", "gut", "."], ["Er", "wohnt", "in", "der", "Hauptstr.", "5", "in", "Berlin", "."]]),
    ("de", "Es kostet 2010 Euro. Dann nicht.", [["Es", "kostet", "2010", "Euro", "."], ["Dann", "nicht", "."]]),
    ("es", "Vive en EE. UU. desde 2010. La Dra. Pérez llegó.",
     [["Vive", "en", "EE.", "UU.", "desde", "2010", "."], ["La", "Dra.", "Pérez", "llegó", "."]]),
    ("nl", "Dhr. Jansen kwam bijv. later. Hij bleef.", [["Dhr.", "Jansen", "kwam", "bijv.", "later", "."], ["Hij", "bleef", "."]]),
    ("en", "We met on the 3. It rained.", [["We", "met", "on", "the", "3", "."], ["It", "rained", "."]]),  # not German
    # what the rules must not join: sentences ending in a number, a name, a word that is an English abbreviation
    ("de", "Er war 25. Er war jung.", [["Er", "war", "25", "."], ["Er", "war", "jung", "."]]),
    ("de", "Kapitel 12. Die Reise beginnt.", [["Kapitel", "12", "."], ["Die", "Reise", "beginnt", "."]]),
    ("de", "Ich sprach mit Max. Er war müde.", [["Ich", "sprach", "mit", "Max", "."], ["Er", "war", "müde", "."]]),
    ("de", "Birnen usw. Das mag ich.", [["Birnen", "usw", "."], ["Das", "mag", "ich", "."]]),
    ("de", "Bis 3. Mai.", [["Bis", "3.", "Mai", "."]]),
    ("es", "Dijo que no. Luego se fue.", [["Dijo", "que", "no", "."], ["Luego", "se", "fue", "."]]),
    ("es", "Vi un ave. Era azul.", [["Vi", "un", "ave", "."], ["Era", "azul", "."]]),
    ("nl", "Ik zag Jan. Hij was moe.", [["Ik", "zag", "Jan", "."], ["Hij", "was", "moe", "."]]),
    ("nl", "Appels enz. Dat is alles.", [["Appels", "enz", "."], ["Dat", "is", "alles", "."]]),
    # what they must keep together: coordinated and preceded ordinals, abbreviations before nouns and numbers
    ("de", "Im 19. und 20. Jahrhundert wuchs sie.", [["Im", "19.", "und", "20.", "Jahrhundert", "wuchs", "sie", "."]]),
    ("de", "Jede 3. Frau kam mit ihrer 2. Tochter.", [["Jede", "3.", "Frau", "kam", "mit", "ihrer", "2.", "Tochter", "."]]),
    ("de", "Die sog. Experten und der ehem. Kanzler.", [["Die", "sog.", "Experten", "und", "der", "ehem.", "Kanzler", "."]]),
    ("de", "Max. 5 Plätze frei.", [["Max.", "5", "Plätze", "frei", "."]]),
    ("es", "Vive en la Avda. Libertad.", [["Vive", "en", "la", "Avda.", "Libertad", "."]]),
    ("nl", "Op 1 jan. 2020 kost het gem. 20 euro.", [["Op", "1", "jan.", "2020", "kost", "het", "gem.", "20", "euro", "."]]),
    ("nl", "De zgn. Vliegende Hollander.", [["De", "zgn.", "Vliegende", "Hollander", "."]]),
])
def test_each_language_knows_its_abbreviations_titles_and_ordinals(lang, text, sentences):
    assert _sentences(text, lang) == sentences


@pytest.mark.parametrize("lang, text, sentences", [
    # scholarly abbreviations before a number or a parenthesis; German academic titles before a name
    ("en", "See Sect. 4 and Eq. 5.", [["See", "Sect.", "4", "and", "Eq.", "5", "."]]),
    ("en", "Jones et al. (2001) did too.", [["Jones", "et", "al.", "(", "2001", ")", "did", "too", "."]]),
    ("de", "Prof. Dr. med. Müller kam.", [["Prof.", "Dr.", "med.", "Müller", "kam", "."]]),
    # bullets at a line's start open a sentence, as numbered items do
    ("en", "\u2022 First bullet\n\u2022 Second bullet", [["\u2022", "First", "bullet"], ["\u2022", "Second", "bullet"]]),
    ("en", "1. First item\n2. Second item\n- bullet one\n- bullet two",
     [["1.", "First", "item"], ["2.", "Second", "item"], ["-", "bullet", "one"], ["-", "bullet", "two"]]),
    ("en", "a well - known fact", [["a", "well", "-", "known", "fact"]]),  # a dash inside a line opens nothing
    ("en", "Steps:\n- one\n- two", [["Steps", ":"], ["-", "one"], ["-", "two"]]),
    ("en", "Shopping list\n- milk\n- eggs", [["Shopping", "list"], ["-", "milk"], ["-", "eggs"]]),
    ("en", "Steps:\n- open the file\n  saved yesterday\n- close it",  # an item wrapped onto an indented line
     [["Steps", ":"], ["-", "open", "the", "file", "saved", "yesterday"], ["-", "close", "it"]]),
    # a dash that starts a line of hard-wrapped prose opens nothing
    ("en", "He said that\n\u2014 as expected \u2014 it failed.",
     [["He", "said", "that", "\u2014", "as", "expected", "\u2014", "it", "failed", "."]]),
    ("en", "He said that\n- as expected - it failed.",
     [["He", "said", "that", "-", "as", "expected", "-", "it", "failed", "."]]),
    # format characters alone are no token (a byte order mark, a word joiner); inside a word they stay
    ("en", "\ufeffIL-2 gene expression.", [["IL-2", "gene", "expression", "."]]),
    ("en", "human \ufeff T \u2060 cells", [["human", "T", "cells"]]),
])
def test_scholarly_abbreviations_bullets_and_invisible_characters(lang, text, sentences):
    """Found by a user of raw text: "Sect. 4" split the sentence, "al. (" lost its period, German
    "med." ended a sentence; bullets never opened one; a byte order mark was a token (and changed the
    tags), where a zero-width space was none."""
    assert _sentences(text, lang) == sentences


def test_a_runaway_sentence_is_cut_at_line_breaks_then_by_length():
    """Lines without punctuation made one sentence of 176,536 tokens (500 MB to tag it)."""
    from chaintag.text.tokenize import MAX_SENTENCE_TOKENS
    lines = "\n".join(f"row {i} of the table" for i in range(300))  # 1,500 tokens on 300 lines
    assert [len(s) for s in _sentences(lines)] == [5] * 300
    words = " ".join(f"w{i}" for i in range(2 * MAX_SENTENCE_TOKENS + 7))  # one line
    assert [len(s) for s in _sentences(words)] == [MAX_SENTENCE_TOKENS, MAX_SENTENCE_TOKENS, 7]
    short = "\n".join(f"row {i}" for i in range(100))  # 200 tokens: a sentence as before
    assert [len(s) for s in _sentences(short)] == [200]
    line = " ".join(["w"] * (MAX_SENTENCE_TOKENS + 500))  # pretokenized text: one line is cut too
    assert [len(s) for s in pretokenized(line).sentence_tokens()] == [MAX_SENTENCE_TOKENS, 500]


@pytest.mark.parametrize("unit", ["a-", "a\u00ad", "aB", "a. ", "a; ", "z.B."])
def test_long_words_and_runs_cost_their_length_once(monkeypatch, unit):
    """A word of many joined pieces (a-a-a-..., 80,000 characters) took 7 s: every piece re-read the
    word so far (its lower-case form, its letters). The rules now read the characters they need; this
    counts the characters the abbreviation checks and the line-start scans read, for 2,000 units."""
    from chaintag.text import tokenize
    read = [0]
    known, abbreviation = tokenize._known, tokenize._abbreviation

    def counted(fn):
        def wrapper(word, *a):
            read[0] += len(word)
            return fn(word, *a)
        return wrapper
    monkeypatch.setattr(tokenize, "_known", counted(known))
    monkeypatch.setattr(tokenize, "_abbreviation", counted(abbreviation))
    text = unit * 2000
    doc = split_text(text)
    assert doc.tokens and all(text[t.start:t.end] == t.text for t in doc.tokens)
    assert read[0] <= 10 * len(text)  # linear; the pieces of the old code read about len(text) ** 2 / 4
