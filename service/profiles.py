"""The profile registry: the built-in profiles plus the operator's (``PROFILES_FILE``).

The operator's file is YAML::

    profiles:
      house-aces:                       # name: lower case, digits and dashes
        extends: standard               # a built-in profile
        description: Aces top the Double-Ox order.
        rules:                          # knob overrides (RULES.md section 7)
          double_ox_order: ace_high

It is read and validated once at start-up; any problem stops the server with a message
naming the profile, the knob and the problem (:class:`ProfilesFileError`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from service.engine.rules import PROFILES, Profile, RulesError, apply_overrides
from service.engine.text import echo

__all__ = ["MAX_OPERATOR_PROFILES", "PROFILES_FILE_ENV", "ProfileRegistry", "ProfilesFileError",
           "UnknownProfileError", "load_profiles_file", "load_registry", "openapi_with_profiles"]

#: The environment variable naming the operator's profiles file.
PROFILES_FILE_ENV = "PROFILES_FILE"

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
_ENTRY_KEYS = {"extends", "description", "rules"}


class ProfilesFileError(ValueError):
    """The operator's profiles file is unreadable or invalid; the message says where."""


class UnknownProfileError(LookupError):
    """No profile has this name (``name``); ``listing`` says where the profiles are listed.

    >>> str(UnknownProfileError("vegas", "gnau profiles"))
    "unknown profile 'vegas'; see gnau profiles"
    """

    def __init__(self, name: str, listing: str) -> None:
        super().__init__(f"unknown profile {echo(name)}; see {listing}")
        self.name = name
        self.listing = listing


class ProfileRegistry(Mapping[str, Profile]):
    """Every profile the service knows, built-in first, by name (read-only mapping).

    :param extra: operator-defined profiles, in file order.
    :param listing: where a user sees the profiles (``GET /v1/profiles``, ``gnau profiles``),
        for the message of an unknown name.
    :raises ProfilesFileError: an extra profile reuses a built-in name.

    >>> ProfileRegistry().named("casino").name
    'casino'
    >>> ProfileRegistry().named("vegas")
    Traceback (most recent call last):
        ...
    service.profiles.UnknownProfileError: unknown profile 'vegas'; see GET /v1/profiles
    """

    def __init__(self, extra: list[Profile] | None = None, listing: str = "GET /v1/profiles") -> None:
        self._profiles: dict[str, Profile] = dict(PROFILES)
        self.listing = listing
        for profile in extra or []:
            if profile.name in self._profiles:
                raise ProfilesFileError(f"profile {echo(profile.name)}: the name is already taken")
            self._profiles[profile.name] = profile

    def named(self, name: str) -> Profile:
        """The profile called ``name``.

        :raises UnknownProfileError: there is none.
        """
        profile = self._profiles.get(name)
        if profile is None:
            raise UnknownProfileError(name, self.listing)
        return profile

    def __getitem__(self, name: str) -> Profile:
        return self._profiles[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)


#: The largest profiles file read; anything larger is refused before it is parsed.
MAX_PROFILES_FILE_BYTES = 256 * 1024
#: The most profiles a file may define. Each is warmed in the master before the workers
#: fork: its table and analyses add about 3 MiB to the pod's memory and up to about 4 s (a
#: commission's house edges) to its start-up (docs/operating.md, "Limits").
MAX_OPERATOR_PROFILES = 16


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, stricter: a key repeated in one mapping is an error (the
    plain loader keeps the last value), and anchors, aliases and merge keys (``<<``) are
    refused: a few hundred bytes of nested aliases expand to gigabytes (a "billion
    laughs"), and an operator file needs none of them (``extends`` shares rules)."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases (&name, *name) are not accepted; write each value out",
                event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise yaml.constructor.ConstructorError(
                    None, None, "merge keys (<<) are not accepted; use extends and rules", key_node.start_mark)
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"found the key {echo(key)} twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error in one line: ``line L, column C: problem``."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None and exc.problem:
        mark = exc.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {exc.problem}"
    return " ".join(str(exc).split())


def load_profiles_file(path: str | Path) -> list[Profile]:
    """Read and validate an operator profiles file.

    :param path: the YAML file.
    :return: the profiles, in file order, each marked ``builtin=False`` and with
        ``extends`` recorded.
    :raises ProfilesFileError: the file cannot be read or parsed, or a profile is invalid;
        the message names the file, the profile, the knob and the problem.
    """
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(MAX_PROFILES_FILE_BYTES + 1)
    except OSError as exc:
        raise ProfilesFileError(f"{path}: cannot read the profiles file: {exc.strerror}") from exc
    if len(raw) > MAX_PROFILES_FILE_BYTES:
        raise ProfilesFileError(f"{path}: the file is over {MAX_PROFILES_FILE_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfilesFileError(f"{path}: not UTF-8 text: byte {exc.start} cannot be decoded") from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise ProfilesFileError(f"{path}: not valid YAML: {_yaml_problem(exc)}") from None
    except RecursionError:
        raise ProfilesFileError(f"{path}: not valid YAML: nested too deeply") from None
    if not isinstance(data, dict) or set(data) != {"profiles"} or not isinstance(data["profiles"], dict):
        raise ProfilesFileError(f"{path}: the file must hold one key, 'profiles', mapping names to profiles")
    if len(data["profiles"]) > MAX_OPERATOR_PROFILES:
        raise ProfilesFileError(
            f"{path}: the file defines {len(data['profiles'])} profiles; at most {MAX_OPERATOR_PROFILES} are "
            "accepted (each one's tables and analyses are built at start-up: about 3 MiB and up to 4 s each; "
            "docs/operating.md, Limits)")
    problems: list[str] = []
    out: list[Profile] = []
    for name, entry in data["profiles"].items():
        try:
            if not isinstance(name, str):
                raise ProfilesFileError(f"profile {echo(name)}: a name must be a string (quote it)")
            out.append(_profile(name, entry))
        except ProfilesFileError as exc:
            problems.append(str(exc))
    if problems:
        raise ProfilesFileError(f"{path}: " + "; ".join(problems))
    try:
        ProfileRegistry(out)
    except ProfilesFileError as exc:
        raise ProfilesFileError(f"{path}: {exc}") from None
    return out


def load_registry(path: str | Path | None = None, *, listing: str = "GET /v1/profiles") -> ProfileRegistry:
    """The built-in profiles plus the operator's file (the service and the ``gnau`` command).

    :param path: the profiles file; when ``None``, ``$PROFILES_FILE`` (none when unset or empty).
    :param listing: where a user sees the profiles (see :class:`ProfileRegistry`).
    :raises ProfilesFileError: the file is invalid.

    >>> len(load_registry("")) == len(PROFILES)
    True
    """
    if path is None:
        path = os.environ.get(PROFILES_FILE_ENV) or None
    return ProfileRegistry(load_profiles_file(path) if path else [], listing)


def _profile(name: str, entry: Any) -> Profile:
    where = f"profile {echo(name)}"
    if not NAME_PATTERN.fullmatch(name):
        raise ProfilesFileError(f"{where}: a name is 1-63 lower-case letters, digits and dashes")
    if name in PROFILES:
        raise ProfilesFileError(f"{where}: the name of a built-in profile cannot be reused")
    if not isinstance(entry, dict):
        raise ProfilesFileError(f"{where}: must be a mapping with extends, description and rules")
    unknown = sorted(set(map(str, entry)) - _ENTRY_KEYS)
    if unknown:
        raise ProfilesFileError(f"{where}: unknown key(s) {', '.join(unknown)}; use extends, description, rules")
    base_name = entry.get("extends")
    if not isinstance(base_name, str) or base_name not in PROFILES:
        raise ProfilesFileError(
            f"{where}: extends must name a built-in profile ({', '.join(PROFILES)}), got {echo(base_name)}"
        )
    description = entry.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ProfilesFileError(f"{where}: description must be a non-empty string")
    overrides = entry.get("rules")
    if overrides is None:
        overrides = {}
    try:
        rules = apply_overrides(PROFILES[base_name].rules, overrides)
    except RulesError as exc:
        details = "; ".join(
            f"knob {'.'.join(map(str, p)) or 'rules'}: {m}" for p, m in exc.problems
        )
        raise ProfilesFileError(f"{where}: {details}") from exc
    return Profile(name=name, description=description.strip(), rules=rules, builtin=False,
                   extends=base_name)


def openapi_with_profiles(document: bytes, registry: Mapping[str, Profile]) -> bytes:
    r"""The OpenAPI document as served: the committed file, plus the operator's profiles
    in the ``profile`` query parameter's enum (``components.parameters.Profile``), so
    clients and contract tests see every profile this server accepts.

    :param document: the committed ``openapi.yaml``.
    :param registry: every profile of the app, built-in first.
    :return: ``document`` unchanged when there are no operator profiles, else the
        document with the extra names appended to the enum, re-serialised as YAML
        (same content, comments and layout not kept).

    >>> spec = b"components:\n  parameters:\n    Profile:\n      schema: {type: string, enum: [standard]}\n"
    >>> openapi_with_profiles(spec, PROFILES) == spec
    True
    >>> extra = Profile("house", "A house rule.", PROFILES["standard"].rules, builtin=False, extends="standard")
    >>> served = yaml.safe_load(openapi_with_profiles(spec, {"standard": PROFILES["standard"], "house": extra}))
    >>> served["components"]["parameters"]["Profile"]["schema"]["enum"]
    ['standard', 'house']
    """
    extra = [name for name, profile in registry.items() if not profile.builtin]
    if not extra:
        return document
    spec = yaml.safe_load(document)
    enum: list[str] = spec["components"]["parameters"]["Profile"]["schema"]["enum"]
    enum.extend(name for name in extra if name not in enum)
    return yaml.dump(spec, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100).encode()


class _BlockDumper(yaml.SafeDumper):
    """PyYAML's safe dumper writing multi-line strings as ``|`` blocks (readable docs)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)
