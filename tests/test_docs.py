"""The README stays true: its two commands exist, and its pictures are the ones the browser tests write."""

import re

from tests.browser import DOC_PICTURES
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
    browser_tests = (REPO / "tests" / "test_browser.py").read_text()
    for picture in pictures:
        assert (REPO / picture).is_file(), picture
    for name in DOC_PICTURES:  # each is taken by a browser test (the loop over manifest/findings included)
        assert f'"{name}"' in browser_tests, name


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
