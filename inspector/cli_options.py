"""How the command line reads its options: one-line errors, and one meaning per option word.

`--format` is always the format a command writes; the format of the trace it reads is detected, or given
with `--input-format`. The spellings older versions used (`--format` for the input, `report
--trace-format`) keep working and print one deprecation line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any, NoReturn


class LazyChoices(Sequence[str]):
    """An option's choices, looked up only when argparse checks a value or prints help: building the parser
    must not import every reader or the scan's engines (`compaction-inspector rules` needs neither)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def _names(self) -> Sequence[str]:
        return getattr(import_module(self.module), self.name)()  # type: ignore[no-any-return]

    def __getitem__(self, index: Any) -> Any:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()


FORMAT_NAMES = LazyChoices("inspector.readers", "format_names")
"""`auto` and every registered reader's name."""
ENGINE_NAMES = LazyChoices("inspector.fleet.engines", "engine_names")
"""Where a scan runs: local processes or a Dask cluster."""

DEPRECATED_HELP = argparse.SUPPRESS
"""Old spellings stay out of `--help`: a newcomer should learn only the current one."""


class Parser(argparse.ArgumentParser):
    """Errors are one line naming the problem, and where to read more; exit 2 like every bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def deprecated(old: str, new: str) -> None:
    print(f"compaction-inspector: {old} is deprecated; use {new}", file=sys.stderr)


class _OutputFormat(argparse.Action):
    """`--format`: one of this command's outputs, or (deprecated) the name of an input format."""

    def __init__(self, option_strings: Sequence[str], dest: str, outputs: Sequence[str], **kwargs: Any) -> None:
        self.outputs = tuple(outputs)
        super().__init__(option_strings, dest, metavar="{" + ",".join(self.outputs) + "}", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:  # fmt: skip
        if values in self.outputs:
            setattr(namespace, self.dest, values)
        elif values in FORMAT_NAMES:
            deprecated(f"--format {values} for the input format", f"--input-format {values}")
            namespace.input_format = values
        else:
            raise argparse.ArgumentError(self, f"invalid choice: {values!r} (choose from {', '.join(self.outputs)})")


class _DeprecatedInputFormat(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:  # fmt: skip
        deprecated(f"{option_string}", "--input-format")
        namespace.input_format = values


def add_formats(parser: argparse.ArgumentParser, outputs: Sequence[str], says: str,
                old_input_option: str | None = None) -> None:  # fmt: skip
    """`--format` for what the command writes (the first of `outputs` by default), `--input-format` for the trace."""
    parser.add_argument("--format", action=_OutputFormat, outputs=outputs, default=outputs[0],
                        help=f"{says} (default {outputs[0]})")  # fmt: skip
    # A metavar, so argparse lists the choices only when it prints help (%(choices)s), not when it builds.
    parser.add_argument("--input-format", default="auto", choices=FORMAT_NAMES, metavar="FORMAT",
                        help="the trace's format: %(choices)s (default auto: detected from its first records)")
    if old_input_option is not None:
        parser.add_argument(old_input_option, dest="input_format", action=_DeprecatedInputFormat,
                            choices=FORMAT_NAMES, metavar="FORMAT", help=DEPRECATED_HELP)  # fmt: skip


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """`--json`: kept as the short form of `--format json`, which scripts already use."""
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="same as --format json")  # fmt: skip


def density(value: str) -> float:
    number = _number(value)
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"{value!r} is not between 0 and 1")
    return number


def megabytes(value: str) -> float:
    number = _number(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not more than 0")
    return number


def count(value: str) -> int:
    """A whole number of at least 1 (workers, tokens, every N)."""
    number = _whole(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is less than 1")
    return number


def summary_index(value: str) -> int:
    """A generation to refresh: S0 is the original context, not a summary, so there is nothing to rebuild."""
    number = _whole(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a generation")
    if number == 0:
        raise argparse.ArgumentTypeError("S0 is the original context and cannot be refreshed; give a summary, S1 "
                                         "or later")  # fmt: skip
    return number


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


def _whole(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


__all__ = ["DEPRECATED_HELP", "ENGINE_NAMES", "FORMAT_NAMES", "LazyChoices", "Parser", "add_formats", "add_json_flag",
           "count", "density", "megabytes", "summary_index"]  # fmt: skip
