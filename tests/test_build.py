"""Players built from source (tournament/build.py): a preset or a command, run once per digest
of the sources in a box without network or other players' files, within its time limit, its
output and log kept in `builds/NAME-DIGEST/`."""
from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

from arbiter.tournament.build import (BuildConfigError, BuildSpec, build, missing_compiler, outside_the_box,
                                      plan_build)
from arbiter.transport.sandbox import BOX_PATH, support

GOOD_C = "#include <stdio.h>\nint main(void) { puts(\"1 1\"); return 0; }\n"
boxed = pytest.mark.skipif(not support().usable, reason="this machine cannot make boxes: " + support().describe())
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="the C preset needs gcc (Debian: gcc)")


def sources(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text)
    return folder


def preset_spec(folder: Path, preset: str, **limits: int) -> tuple[BuildSpec, tuple[str, ...]]:
    command, runs, name = plan_build(preset, folder)
    assert runs is not None
    return BuildSpec(folder.name, str(folder), command, name, **limits), runs


@needs_gcc
def test_a_build_runs_once_per_digest_of_its_sources(tmp_path):
    folder = sources(tmp_path, "alice", {"bot.c": GOOD_C})
    spec, runs = preset_spec(folder, "c")
    builds = tmp_path / "results" / "builds"
    first = build(spec, builds, runs)
    assert first.ok and not first.cached and first.folder.name == f"alice-{first.digest[:16]}"
    assert (first.folder / "bot").is_file() and (first.folder / "bot.c").read_text() == GOOD_C
    kept = json.loads((first.folder / "build.json").read_text())
    assert kept["ok"] is True and kept["command"][0] == "gcc" and kept["digest"] == first.digest
    stamp = (first.folder / "bot").stat().st_mtime_ns
    started: list[str] = []
    again = build(spec, builds, runs, starting=lambda: started.append("again"))
    assert again.cached and again.folder == first.folder and started == []
    assert (first.folder / "bot").stat().st_mtime_ns == stamp  # not built again
    (folder / "bot.c").write_text(GOOD_C.replace("1 1", "1 2"))
    changed = build(spec, builds, runs, starting=lambda: started.append("changed"))
    assert changed.ok and not changed.cached and changed.folder != first.folder and started == ["changed"]
    assert first.folder.is_dir()  # the earlier build is kept under its own digest


@needs_gcc
def test_a_failed_build_keeps_its_reason_and_log_and_is_not_run_again(tmp_path):
    folder = sources(tmp_path, "bob", {"bot.c": "int main(void) { return 0 }\n"})
    spec, runs = preset_spec(folder, "c")
    failed = build(spec, tmp_path / "builds", runs)
    assert not failed.ok and failed.reason == f"{' '.join(spec.command)} exited with status 1"
    assert "bot.c:1:26: error: expected" in failed.log.read_text()  # gcc's words, in its locale's quotes
    assert json.loads((failed.folder / "build.json").read_text())["ok"] is False
    again = build(spec, tmp_path / "builds", runs)
    assert again.cached and not again.ok and again.reason == failed.reason


def test_a_build_past_its_time_limit_fails(tmp_path):
    folder = sources(tmp_path, "slow", {"Makefile": "bot:\n\tsleep 60\n"})
    spec = BuildSpec("slow", str(folder), ("sleep", "60"), time_ms=300)
    failed = build(spec, tmp_path / "builds", ("./bot",))
    assert not failed.ok and failed.reason == "the build took longer than its 0.3 s (build_limits: time_ms)"


def test_a_build_that_makes_no_program_fails(tmp_path):
    folder = sources(tmp_path, "lazy", {"Makefile": "bot:\n\ttrue\n"})
    failed = build(BuildSpec("lazy", str(folder), ("true",)), tmp_path / "builds", ("./bot",))
    assert not failed.ok and failed.reason == "true made no ./bot (the command the player runs)"


@boxed
def test_a_build_runs_without_network_and_sees_no_other_player(tmp_path):
    others = sources(tmp_path, "carol", {"secret.txt": "carol's opening book"})
    interfaces = [name for _, name in socket.if_nameindex()]
    if interfaces == ["lo"]:
        pytest.skip("this machine has no network interface but its loopback: a box could not show less")
    probe = ("import os, socket\n"
             "open('net.txt', 'w').write(' '.join(name for _, name in socket.if_nameindex()))\n"
             f"open('seen.txt', 'w').write(str(os.path.exists({str(others / 'secret.txt')!r})))\n")
    folder = sources(tmp_path, "dave", {"probe.py": probe})
    done = build(BuildSpec("dave", str(folder), ("python3", "probe.py")), tmp_path / "builds", ())
    assert done.ok, done.log.read_text()
    assert (done.folder / "net.txt").read_text() == "lo"
    assert (done.folder / "seen.txt").read_text() == "False"


@pytest.mark.skipif(shutil.which("javac") is None, reason="the Java preset needs javac (Debian: default-jdk)")
def test_the_java_preset_builds_a_class_and_runs_it_by_name(tmp_path):
    folder = sources(tmp_path, "jay", {"Nim.java": "public class Nim { public static void main(String[] a) { } }\n"})
    spec, runs = preset_spec(folder, "java")
    assert runs == ("java", "-cp", ".", "Nim")
    done = build(spec, tmp_path / "builds", runs)
    assert done.ok, done.log.read_text()
    assert (done.folder / "Nim.class").is_file()


def test_the_rust_preset_builds_a_program(tmp_path):
    assert shutil.which("rustc", path=BOX_PATH), \
        "the Rust preset builds in a box with the system's rustc: apt-get install rustc (.ci/run installs it)"
    folder = sources(tmp_path, "crab", {"main.rs": "fn main() { println!(\"1 1\"); }\n"})
    spec, runs = preset_spec(folder, "rust")
    done = build(spec, tmp_path / "builds", runs)
    assert done.ok, done.log.read_text()
    assert (done.folder / "bot").is_file()


def test_a_preset_needs_exactly_one_source_file_of_its_language(tmp_path):
    folder = sources(tmp_path, "twins", {"a.c": "", "b.c": "", "notes.txt": ""})
    with pytest.raises(BuildConfigError, match=r"'c' builds one C source file \(.c\), and .*twins holds 2 \(a.c, b.c\)"):
        plan_build("c", folder)
    assert plan_build("make -j1", folder) == (("make", "-j1"), None, None)
    with pytest.raises(BuildConfigError, match="cannot split it like a shell would"):
        plan_build("make 'x", folder)


def test_a_missing_compiler_names_the_package_that_installs_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert missing_compiler(("fpc", "-O2"), "pascal") == (
        "the Pascal preset needs 'fpc', which is not on this machine's PATH: install it (Debian: apt install fp-compiler)")
    assert missing_compiler(("cargo", "build"), None) == (
        "'cargo' is not installed, which is not on this machine's PATH: install it (Debian: apt install cargo)")
    assert missing_compiler(("/bin/sh", "build.sh"), None) is None


def test_a_compiler_the_box_cannot_find_is_named(monkeypatch, tmp_path):
    own = tmp_path / "bin"
    own.mkdir()
    (own / "rustc").write_text("#!/bin/sh\n")
    (own / "rustc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{own}:{BOX_PATH}")
    problem = outside_the_box(("rustc", "-O"))
    if shutil.which("rustc", path=BOX_PATH) is None:
        assert problem is not None and f"'rustc' is {own / 'rustc'}, outside the system's folders" in problem
        assert "install Debian's rustc, or build this trusted player unboxed (sandbox: off)" in problem
    assert outside_the_box(("sh", "-c", "make")) is None
