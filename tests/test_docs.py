"""The README stays true: its two commands exist, and its pictures are the ones the browser tests write."""

import re
from pathlib import Path

import tests.browser
from tests.browser import ARTIFACTS, BROWSER_TESTS, DOC_PICTURES, DOC_SCREENSHOTS_ENV, SCREENSHOTS
from tests.helpers import REPO

README = (REPO / "README.md").read_text()


def test_the_two_commands_are_make_targets():
    commands = re.findall(r"^make (\w+)\s+#", README, re.MULTILINE)
    assert commands[:2] == ["serve", "test"]
    makefile = (REPO / "Makefile").read_text()
    for target in commands:
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_readme_pictures_are_the_screenshots_the_browser_tests_refresh():
    pictures = set(re.findall(r"\]\((docs/screenshots/[\w-]+\.png)\)", README))
    assert {p.removeprefix("docs/screenshots/").removesuffix(".png") for p in pictures} == DOC_PICTURES
    browser_tests = "".join((REPO / name).read_text() for name in BROWSER_TESTS)
    for picture in pictures:
        assert (REPO / picture).is_file(), picture
    for name in DOC_PICTURES:  # each is taken by a browser test (the loop over manifest/findings included)
        assert f'"{name}"' in browser_tests, name


class _Page:
    """Stands in for a Playwright page: `screenshot` writes the bytes a picture would have."""

    def screenshot(self, path: str, full_page: bool) -> None:
        Path(path).write_bytes(b"picture")


def test_a_test_run_writes_its_screenshots_only_to_the_ignored_artifacts_folder(tmp_path, monkeypatch):
    """`make test` must leave `git status` clean: the README's pictures change only through `make screenshots`."""
    assert SCREENSHOTS.is_relative_to(ARTIFACTS) and "test-artifacts/" in (REPO / ".gitignore").read_text().split()
    monkeypatch.setattr(tests.browser, "REPO", tmp_path)  # where docs/screenshots would be written
    monkeypatch.setattr(tests.browser, "SCREENSHOTS", tmp_path / "artifacts")
    monkeypatch.delenv(DOC_SCREENSHOTS_ENV, raising=False)
    assert tests.browser.save_screenshot(_Page(), "chain") == tmp_path / "artifacts" / "chain.png"
    assert not (tmp_path / "docs").exists()  # a plain run writes no README picture

    monkeypatch.setenv(DOC_SCREENSHOTS_ENV, "docs/screenshots")  # as `make screenshots` runs the browser tests
    for name in ("chain", "hostile-home"):
        tests.browser.save_screenshot(_Page(), name)
    assert [p.name for p in (tmp_path / "docs" / "screenshots").iterdir()] == ["chain.png"]  # README pictures only


def test_make_screenshots_points_the_browser_tests_at_the_readme_pictures():
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\nscreenshots:", 1)[1].split("\n\n", 1)[0]
    assert f"{DOC_SCREENSHOTS_ENV}=docs/screenshots" in recipe and all(name in recipe for name in BROWSER_TESTS)
    assert "make screenshots" in README
    assert DOC_SCREENSHOTS_ENV not in makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]  # `make test` never does


def test_the_readme_lists_every_reader_with_what_it_was_tested_on():
    from inspector.readers import readers

    readme = (REPO / "README.md").read_text()
    for reader in readers():
        where = ", ".join(f"`{location}`" for location in reader.default_locations) or "wherever you write it"
        assert f"| `{reader.name}` | {reader.description} | {where} | {reader.tested_on} |" in readme, reader.name
        assert reader.tested_on, f"{reader.name} does not say what it was tested on"


def test_every_rule_is_described_in_the_signals_document():
    from inspector.rules import all_rules

    signals = (REPO / "docs" / "signals.md").read_text()
    assert [r.id for r in all_rules() if f"`{r.id}`" not in signals] == []


def test_every_setting_the_code_reads_is_documented_in_the_readme():
    """A bound nobody can find is a bound nobody can raise: every `INSPECTOR_…` name the code reads is in the README."""
    code = "".join(path.read_text() for folder in ("inspector", "pages") for path in (REPO / folder).rglob("*.py"))
    named = set(re.findall(r'"(INSPECTOR_[A-Z_]+)"', code))
    assert "INSPECTOR_UPLOAD_MAX_FILE_MB" in named and {n for n in named if n not in README} == set()
