"""Users who do not write English: their words are words, get terms, and are found kept or lost like anyone's.

The statements are answers given through Claude Code's question tool, the one path by which a statement is
an item whatever its language (a typed prompt is typed by English markers: "never", "must", "let's"…).
"""

from __future__ import annotations

import unicodedata

import pytest

from inspector import analyze
from inspector.config import DEFAULT_CONFIG
from inspector.invariants import IndexedText
from inspector.languages import language_of, same_language
from inspector.model import Generation, InvariantKind, SourceRecord, Trace
from inspector.presence import presence, topic_terms
from inspector.statement_force import binding
from inspector.statements import statement_kind, user_items
from inspector.text import content_terms, sentences, stem, words

KOREAN = "프로덕션 데이터베이스는 읽기 전용으로 유지하고 마이그레이션은 스테이징에서만 실행하세요"
"""Keep the production database read-only and run migrations on staging only."""
PORTUGUESE = "Nunca altere o esquema do banco de dados de produção sem me perguntar antes"
"""Never change the production database's schema without asking me first."""


def answered(text: str) -> SourceRecord:
    return SourceRecord("u1", text, namespace="transcript", kind="user", authority="user",
                        extra={"via": "question-tool"})  # fmt: skip


def session(said: str, *summaries: str) -> Trace:
    """A session log: the agent asks, the user answers, then one summary per text, each covering both."""
    asked = SourceRecord("a1", "How should the database be handled?", namespace="transcript", kind="assistant",
                         authority="assistant")  # fmt: skip
    records = (asked, answered(said))
    keys = tuple(r.key for r in records)
    generations = [Generation(0, "raw", "\n".join(r.text for r in records), covers=keys)]
    generations += [Generation(k, "summary", text, parent=k - 1, covers=keys) for k, text in enumerate(summaries, 1)]
    return Trace("fixture", "claude-code", records, tuple(generations), extra={"meta": {"session_log": True}})


def lost_in(trace: Trace) -> list[int | None]:
    return [f.generation for f in analyze(trace).findings if f.rule == "user-statement-lost"]


def carried(said: str, summary: str) -> bool:
    """One passage of the summary carries half of the statement's topic terms: kept, not merely "not lost"."""
    return presence(said, IndexedText(summary)).coverage >= DEFAULT_CONFIG.kept_coverage


# --- words and terms -------------------------------------------------------------------------------


def test_status_and_statuses_share_a_stem_that_is_a_word() -> None:
    assert stem("status") == stem("statuses") == "status"
    assert content_terms("the statuses") == content_terms("its status") == {"status"}


def test_words_that_say_nothing_stay_out_of_a_topic_whatever_their_stem() -> None:
    assert topic_terms("really, basically just using the simple approach") == set()


def test_a_path_a_version_and_an_identifier_are_looked_for_as_written() -> None:
    assert sorted(content_terms("it's v1.2 in src/items.py and node_modules")) == [
        "node_modules", "src/items.py", "v1.2"]  # fmt: skip ("it's" is "it is": function words)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("не трогай базу данных", {"не", "трога", "баз", "дан"}),  # Russian: Cyrillic has a Snowball stemmer
        ("βάση δεδομένων", {"βασ", "δεδομεν"}),  # Greek too
        ("हिन्दी भाषा", {"हिन्दी", "भाषा"}),  # Devanagari: a vowel sign is part of its word; no stemmer, kept whole
        ("生产数据库", {"生产", "产数", "数据", "据库"}),  # Chinese: no spaces, character pairs
        ("データベース", {"デー", "ータ", "タベ", "ベー", "ース"}),  # the long-vowel mark is kana
    ],
)
def test_words_of_other_scripts_get_terms(text: str, expected: set[str]) -> None:
    assert content_terms(text) == expected


def test_the_marks_of_an_emoji_are_not_a_word() -> None:
    """A variation selector and a joiner are combining marks with no letter under them."""
    assert words("⚠️ Warning: 🏳️\u200d🌈 ready ✔️") == ["warning", "ready"]


def test_a_korean_particle_changes_one_pair_not_the_word() -> None:
    subject, object_ = content_terms("데이터베이스는"), content_terms("데이터베이스를")
    assert len(subject & object_) == 5 and subject ^ object_ == {"스는", "스를"}


def test_a_latin_word_fused_to_a_korean_particle_is_stemmed_apart() -> None:
    assert content_terms("statuses는") == {"status"}


def test_portuguese_words_keep_their_accents_and_english_rules_leave_them_whole() -> None:
    assert words("Não mexa na configuração") == ["não", "mexa", "na", "configuração"]
    assert {stem("produção"), stem("configuração"), stem("nunca")} == {"produção", "configuração", "nunca"}
    assert stem("bancos") == stem("banco")


def test_a_decomposed_accent_is_the_same_word_as_a_composed_one() -> None:
    typed = unicodedata.normalize("NFD", "não altere a configuração")
    assert len(words(typed)) == 4
    assert content_terms(typed) == content_terms("não altere a configuração")


# --- kept and lost ---------------------------------------------------------------------------------


def test_a_korean_statement_quoted_in_a_summary_is_kept_and_lost_once_removed() -> None:
    quoted = f'6. All user messages:\n   - "{KOREAN}"\n7. Pending Tasks:\n   - Add the staging job.'
    removed = '6. All user messages:\n   - "테스트를 먼저 추가해 주세요"\n7. Pending Tasks:\n   - Add the staging job.'
    assert carried(KOREAN, quoted)
    assert lost_in(session(KOREAN, quoted, removed)) == [2]


def test_a_korean_statement_paraphrased_with_other_particles_and_endings_is_kept() -> None:
    """Of its eight words the paraphrase repeats three as they were (읽기, 전용으로, 프로덕션); its pairs, most."""
    paraphrased = "결정: 프로덕션 데이터베이스를 읽기 전용으로 유지하며 마이그레이션을 스테이징 환경에서만 실행할 것."
    removed = "결정: 테스트를 먼저 추가할 것."
    assert carried(KOREAN, paraphrased)
    assert lost_in(session(KOREAN, paraphrased, removed)) == [2]


def test_a_portuguese_statement_kept_in_a_summary_is_kept_and_lost_once_removed() -> None:
    paraphrased = "Decisão do usuário: não alterar os esquemas dos bancos de dados de produção sem perguntar antes."
    removed = "Decisão do usuário: adicionar testes de integração ao módulo de pagamentos."
    assert carried(PORTUGUESE, paraphrased)
    assert lost_in(session(PORTUGUESE, paraphrased, removed)) == [2]


def test_a_portuguese_statement_typed_decomposed_is_kept_by_a_composed_summary() -> None:
    typed = unicodedata.normalize("NFD", "Não use a configuração automática de migração em produção")
    kept = "The user answered: não use a configuração automática de migração em produção."
    assert carried(typed, kept)
    assert lost_in(session(typed, kept, "The user answered about the release notes.")) == [2]


def test_a_two_word_phrase_of_a_korean_statement_is_found_in_a_summary() -> None:
    """A phrase kept word for word is evidence the item was paraphrased, not lost, in any script."""
    assert presence(KOREAN, IndexedText("Notes: the user asked for 읽기 전용으로 access.")).phrase


def test_a_chinese_or_japanese_full_stop_ends_a_sentence_without_a_space() -> None:
    assert [s.text for s in sentences("用户决定：不要修改生产数据库。测试稍后再加！为什么？")] == [
        "用户决定：不要修改生产数据库。", "测试稍后再加！", "为什么？"]  # fmt: skip
    assert [s.text for s in sentences("本番は触らないでください。テストは後で。")] == [
        "本番は触らないでください。", "テストは後で。"]  # fmt: skip


def test_a_chinese_statement_is_not_kept_by_pairs_scattered_over_a_paragraph() -> None:
    """Each sentence names one thing the statement names; no passage says not to modify the production database."""
    said = "不要修改生产数据库"
    paragraph = "用户要求先修改测试。然后我们讨论了生产环境的部署。接着检查了日志。最后更新了数据库文档。"
    assert lost_in(session(said, f"决定：{said}。", paragraph)) == [2]


# --- typed statements in other languages, and summaries in another language ---------------------------


def typed(text: str) -> SourceRecord:
    return SourceRecord("u1", text, namespace="transcript", kind="user", authority="user")


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        (PORTUGUESE, InvariantKind.USER_CONSTRAINT),
        ("No cambies la configuración de producción sin avisarme", InvariantKind.USER_CONSTRAINT),
        ("Die Migrationen bitte nicht löschen, wir brauchen sie noch", InvariantKind.USER_CONSTRAINT),
        ("절대 main 브랜치에 직접 푸시하지 마세요", InvariantKind.USER_CONSTRAINT),
        ("本番のデータベースは絶対に変更しないでください", InvariantKind.USER_CONSTRAINT),
        (KOREAN, InvariantKind.USER_REQUIREMENT),
        ("Il faut garder les tests d'intégration dans le même dossier", InvariantKind.USER_REQUIREMENT),
        ("所有的提交都必须通过代码审查", InvariantKind.USER_REQUIREMENT),
    ],
)
def test_a_typed_rule_in_another_language_is_an_item(said: str, kind: InvariantKind) -> None:
    assert statement_kind(said, language_of(said)) is kind
    [item] = user_items(typed(said))
    assert item.kind is kind


def test_a_question_or_a_plain_report_in_another_language_is_not() -> None:
    for said in ("本番のデータベースは変更しましたか？", "O deploy terminou ontem à noite", "테스트가 통과했어요"):
        assert statement_kind(said, language_of(said)) is None, said


@pytest.mark.parametrize("said", [
    "cliで存在しないディレクトリやfileを指定された時の挙動もvscodeとかcot editorとか参考にいい感じにやってね。",
    "同じミスで同じことが起こらないように、テストケース追加してね", "必要ないリソースは削除してほしい",
    "ちゃんと動いてるか確認してからリリースして", "設定ファイルを三つの中から選んで", "コミットお願いします",
    "응 백엔드도 수정해줘", "請你幫我加上skills /workflows:review 在他每一次實作完一個phase時review"])
def test_a_plain_request_typed_in_another_language_is_a_requirement(said: str) -> None:
    """mdpreview_3ad7a41f (fresh40, labelled blind: an error loss of S1) asked in plain Japanese, ending with the
    te-form and "ね", for the CLI to handle a missing file as VS Code does; the agent said it would and never did, and
    the request was no item, as none of the session's "…して" and "…てほしい" were, nor Korean "-줘" or Chinese
    "请你帮我" (openwhisperm, broadlisteni, dotnix, repiq, hudyfrontend: 100 requests in 15 sessions)."""
    assert statement_kind(said, language_of(said)) is InvariantKind.USER_REQUIREMENT


@pytest.mark.parametrize("said", ["なぜかエラーが出ていて", "これらのストレージ技術を使うことで。",
                                  "今回の差分は整合しており、回帰リスクは低いで", "HTTP请求失败了，返回码是500"])
def test_a_sentence_left_going_or_a_request_as_a_noun_is_no_request(said: str) -> None:
    """"-ていて" and a "-で" after no "ん" leave a sentence going ("and …"); "请求" is a request as a noun."""
    assert statement_kind(said, language_of(said)) is None


def test_a_statement_is_in_the_language_of_its_words_not_of_the_names_it_cites() -> None:
    """paicujp_a431b407 (fresh41, labelled blind after scoring: S1 faithful) answered the question tool
    "SUPERUSER_EMAILS と同じ." ("the same as SUPERUSER_EMAILS"): most of its letters are the name's, so it was taken
    for no language and judged against the English S1, whose "Access: SUPERUSER_EMAILS (same 3 people)" cannot share
    its Japanese words; it was called lost, and so was a "." the split left alone. A name in ASCII is no language's; a
    run of Japanese with a digit in it is still Japanese."""
    assert not same_language("SUPERUSER_EMAILS と同じ.", "en") and same_language("SUPERUSER_EMAILS と同じ.", "ja")
    assert not same_language("ティア1がマスターデータ、ティア2がユーザーの登録したデータです。", "en")
    assert same_language("use SUPERUSER_EMAILS for the GA4 access check in src/app.ts", "en")
    asked = "GA4 ダッシュボードの閲覧権限は SUPERUSER_EMAILS と同じ3人ですか？"
    said = "SUPERUSER_EMAILS と同じ.\n過去 48 時間にデータを受信しています。\r."  # a pasted answer, then the stop
    stretches = [[0, 21, asked], [22, len(said), "どのプロパティ？"]]
    record = SourceRecord("u1", said, namespace="transcript", kind="user", authority="user",
                          extra={"via": "question-tool", "asked": stretches})
    assert "." not in [item.text for item in user_items(record)]


def test_an_english_word_borrowed_by_another_language_gives_no_force() -> None:
    """hudyfrontend_436ac5a4 (u63, labelled blind: S1 faithful): "그리고 기존 기존 only 유료 플랜으로 동작하던 방식도
    … 대응해줘" borrows "only" for "the paid-only plan"; read by English's rules it was a binding rule, and the guard
    listed it before the compaction. Its force is its own language's: a request. English keeps its own."""
    borrowed = "그리고 기존 only 유료 플랜으로 동작하던 방식도 무료플랜도 생기니까 그에맞게 대응해줘"
    assert statement_kind(borrowed, language_of(borrowed)) is InvariantKind.USER_REQUIREMENT
    assert not binding(borrowed)
    assert binding("only use uv to run the tests") and binding("절대 main 브랜치에 직접 푸시하지 마세요")


def test_a_typed_prohibition_in_another_language_binds_and_an_obligation_warns() -> None:
    assert binding(PORTUGUESE) and binding("절대 main 브랜치에 직접 푸시하지 마세요")
    assert not binding("Il faut garder les tests d'intégration dans le même dossier")


def test_the_language_of_a_text_is_its_script_or_its_commonest_words() -> None:
    assert language_of(KOREAN) == "ko" and language_of("本番のデータベースは変更しないでください") == "ja"
    assert language_of("O usuário pediu que não se altere o esquema do banco de dados de produção") == "pt"
    assert language_of("The user asked that the production schema is not changed without a review.") == "en"
    assert language_of("Fix it.") is None  # too short to tell


def test_a_statement_is_not_called_lost_by_a_summary_written_in_another_language() -> None:
    records = (typed(PORTUGUESE),)
    english = "The user asked for the integration tests to be added to the payments module, and we did it."
    portuguese = "O usuário pediu que os testes de integração sejam adicionados ao módulo de pagamentos."
    keys = ("u1",)
    trace = Trace("fixture", "claude-code", records,
                  (Generation(0, "raw", PORTUGUESE, covers=keys),
                   Generation(1, "summary", english, parent=0, covers=keys),
                   Generation(2, "summary", portuguese, parent=1, covers=keys)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    lost = [(f.generation, f.severity.value) for f in analyze(trace).findings if f.rule == "user-statement-lost"]
    assert lost == [(2, "error")]  # S1 is English: no word of the statement could be there


def test_an_answer_to_a_question_asked_in_another_language_is_looked_for_by_its_own_words() -> None:
    """repiq_e82ef922 (outside ../shared, its labels: nothing lost): the agent asked in Japanese which epic to spec
    next, the user answered "epic 5.", and the English summary says "Epic 5: Agent Skills". The question's words,
    which an English summary cannot hold, thinned the answer's share to a loss; asked in English, they still count."""
    from inspector.invariants import InvariantStatus
    from inspector.item_matching import match_user_item
    from inspector.model import Invariant

    summary = IndexedText("The user and the agent worked through the product lifecycle of the tool, and the primary "
                          "goals were these:\n- **Epic 5: Agent Skills** — make repiq discoverable by agents through "
                          "the standard skill format, which is what the user asked for.\nThe next step is to write "
                          "the feature specs for the epic and open a pull request with them.")
    asked_in_japanese = Invariant("d1", InvariantKind.USER_DECISION, "epic 5.",
                                  context="次にどのようなイニシアチブのエピックスペックを作成しますか？")
    assert match_user_item(asked_in_japanese, summary).status is not InvariantStatus.LOST
    asked_in_english = Invariant("d2", InvariantKind.USER_DECISION, "epic 5.",
                                 context="Which initiative should the next epic spec cover: onboarding or billing?")
    assert match_user_item(asked_in_english, summary).status is InvariantStatus.LOST
