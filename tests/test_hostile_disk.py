"""Outputs onto what is no plain file, and a disk that refuses (issue 32, items 4 and 7).

- ``-o`` onto a character device or a FIFO writes into it and never replaces it: as root the
  atomic rename used to put a regular file in place of ``/dev/null``. Every case makes its
  own node in ``tmp_path`` (``mknod`` with /dev/null's major/minor 1,3); the real /dev/null
  is never touched.
- A full or read-only disk is one line naming the output and the OS's reason, exit 1, no
  file left behind (a 64 KiB tmpfs, mounted here when the tests run as root; a test that
  cannot mount is skipped, and the monkeypatched case below still runs everywhere).
- A workflow job never records such an error as its dataset's failure.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from pathlib import Path

import pytest
from cli_run import run

PEAKS = ["--peak-tflops", "100", "--peak-bandwidth", "1000"]




def _roofline(path: Path, rows: int = 3) -> Path:
    """A roofline CSV of ``rows`` kernels; 2,000 rows convert to ~300 KB of points CSV."""
    path.write_text("kernel,ai,tflops\n" + "".join(f"kernel_{i},{1 + i % 50},{1 + i % 7}\n"
                                                    for i in range(rows)))
    return path


def _char_device(path: Path) -> Path:
    """A private character device with /dev/null's numbers (1, 3): writes vanish."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD)")
    return path


def _is_dev_null_node(path: Path) -> bool:
    info = os.lstat(path)
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == os.makedev(1, 3)


def test_output_onto_a_character_device_writes_into_it(capsys, tmp_path):
    node = _char_device(tmp_path / "null")
    src = _roofline(tmp_path / "r.csv")
    code, lines = run(capsys, "convert", src, "-o", node)
    assert code == 0, lines
    assert _is_dev_null_node(node), "the device was replaced"
    # No temporary file beside it, nor in the folder it was made in.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "r.csv"]


def test_output_through_a_link_to_a_device_keeps_both(capsys, tmp_path):
    node = _char_device(tmp_path / "null")
    link = tmp_path / "out.png"
    link.symlink_to(node)
    src = _roofline(tmp_path / "r.csv")
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", link, "--table", node)
    assert code == 1 and "named twice" in lines[0], lines  # one device, two outputs
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", link)
    assert code == 0, lines
    assert link.is_symlink() and _is_dev_null_node(node)


def test_output_onto_a_fifo_is_written_to_its_reader(capsys, tmp_path):
    fifo = tmp_path / "points.csv"
    os.mkfifo(fifo)
    src = _roofline(tmp_path / "r.csv")
    # A reader that is there before the writer (opened without waiting for one); the
    # three rows fit the pipe's buffer, so the command never waits for it to read.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, lines = run(capsys, "convert", src, "-o", fifo)
        text = os.read(reader, 1 << 16).decode()
    finally:
        os.close(reader)
    assert code == 0, lines
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert text.startswith("series,") and text.count("\n") == 4  # header + 3 kernels
    assert sorted(p.name for p in tmp_path.iterdir()) == ["points.csv", "r.csv"]


def test_output_onto_a_fifo_nobody_reads_is_refused(capsys, tmp_path):
    fifo = tmp_path / "points.csv"
    os.mkfifo(fifo)
    src = _roofline(tmp_path / "r.csv")
    code, lines = run(capsys, "convert", src, "-o", fifo)
    assert code == 1, lines
    assert lines == [f"rooflow: error: {fifo}: is a FIFO that nobody reads: nothing written "
                     "[check: output]"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["points.csv", "r.csv"]


def test_output_onto_a_socket_is_refused_before_reading(capsys, tmp_path):
    sock = tmp_path / "s.csv"
    os.mknod(sock, stat.S_IFSOCK | 0o600)
    src = _roofline(tmp_path / "r.csv")
    code, lines = run(capsys, "convert", src, "-o", sock)
    assert code == 1 and len(lines) == 1, lines
    assert f"{sock}: is a socket" in lines[0]
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB tmpfs at ``tmp_path/disk`` (and a read-only one at ``tmp_path/ro``)."""
    disk, ro = tmp_path / "disk", tmp_path / "ro"
    disk.mkdir()
    ro.mkdir()
    mounted = []
    try:
        for where, options in ((disk, "size=64k"), (ro, "size=64k,ro")):
            done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                                  capture_output=True)
            if done.returncode:
                pytest.skip("cannot mount a tmpfs here (needs root): the simulated case runs")
            mounted.append(where)
        yield disk, ro
    finally:
        for where in mounted:
            subprocess.run(["umount", str(where)], check=True)


def test_a_full_disk_is_one_line_and_no_file(capsys, tmp_path, tiny_disk):
    disk, _ = tiny_disk
    (disk / "filler").write_bytes(b"x" * 56_000)  # a Parquet of 2,000 points is ~20 KB
    src = _roofline(tmp_path / "r.csv", 2000)
    for args in (["convert", src, "-o", disk / "points.csv"],
                 ["convert", src, "-o", disk / "points.parquet"],
                 ["plot", src, *PEAKS, "-o", disk / "p.svg"]):
        code, lines = run(capsys, *args)
        assert code == 1, lines
        out = args[args.index("-o") + 1]
        assert lines == [f"rooflow: error: {out}: cannot write: No space left on device "
                         "(ENOSPC) [check: output written]"], lines
        assert [p.name for p in disk.iterdir()] == ["filler"], "a partial file was left"


def test_a_read_only_folder_is_one_line(capsys, tmp_path, tiny_disk):
    _, ro = tiny_disk
    src = _roofline(tmp_path / "r.csv")
    code, lines = run(capsys, "convert", src, "-o", ro / "points.csv")
    assert code == 1, lines
    assert lines == [f"rooflow: error: {ro / 'points.csv'}: cannot write: Read-only file "
                     "system (EROFS) [check: output written]"]


def test_a_refused_write_anywhere_is_one_line(capsys, tmp_path, monkeypatch):
    """Without a tmpfs (not root): ENOSPC raised where polars writes the file, the OS
    boundary of its Rust writer, whose error carries no errno, only ``(os error 28)``."""
    import polars as pl

    def full(self, *args, **kwargs):
        raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on "
                                         "device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    src = _roofline(tmp_path / "r.csv")
    out = tmp_path / "out"
    out.mkdir()
    code, lines = run(capsys, "convert", src, "-o", out / "p.parquet")
    assert code == 1, lines
    assert lines == [f"rooflow: error: {out / 'p.parquet'}: cannot write: No space left on "
                     "device (ENOSPC) [check: output written]"]
    assert list(out.iterdir()) == []


def _member(tmp_path):
    from rooflow.workflow.batches import Member

    raw = tmp_path / "x.csv"
    raw.write_text("label,arithmetic_intensity,tflops\nk,1,1\n")
    return Member("roofline-x", "roofline", "x", {"raw": str(raw)}, {}, "")


@pytest.mark.parametrize("error", [
    "write", "os"])
def test_a_refused_write_is_never_the_datasets_failure(tmp_path, monkeypatch, error):
    """A batch job reading a dataset: a full disk fails the job (exit 1 / 2) and records
    nothing, so the next run, with space freed, reads the dataset again (it was saved as
    its failure)."""
    import rooflow.adapters
    from rooflow.errors import WriteError
    from rooflow.workflow import batches
    from rooflow.workflow.rulescript import run as run_job

    def load_points(*args, **kwargs):
        if error == "write":
            raise WriteError("out.parquet", "cannot write: No space left on device (ENOSPC)")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rooflow.adapters, "load_points", load_points)
    points = tmp_path / "p.parquet"

    def step(log):
        batches.make_points(_member(tmp_path), {}, str(points), log, str(tmp_path / "tb"))

    log = tmp_path / "job.log"
    with pytest.raises(SystemExit) as stop:
        run_job(step, str(log))
    assert not points.exists()  # no failed points file: nothing recorded
    assert stop.value.code == (1 if error == "write" else 2)
    assert "No space left on device" in log.read_text()


def test_bad_input_is_still_the_datasets_failure(tmp_path, monkeypatch):
    import rooflow.adapters
    from rooflow.errors import InputError
    from rooflow.workflow import batches
    from rooflow.workflow.failed import failure

    def load_points(*args, **kwargs):
        raise InputError("x.csv", "bad")

    monkeypatch.setattr(rooflow.adapters, "load_points", load_points)
    points = tmp_path / "p.parquet"
    line = batches.make_points(_member(tmp_path), {}, str(points), print, str(tmp_path / "tb"))
    assert line == "rooflow: error: x.csv: bad" and failure(points) == line


def test_failed_note_on_a_full_disk_fails_the_job(tmp_path, tiny_disk, monkeypatch):
    """Writing the failed-points note itself hits the full disk: exit 1, one line."""
    import rooflow.adapters
    from rooflow.errors import InputError
    from rooflow.workflow import batches
    from rooflow.workflow.rulescript import run as run_job

    disk, _ = tiny_disk
    (disk / "filler").write_bytes(b"x" * 60_000)

    def load_points(*args, **kwargs):
        raise InputError("x.csv", "bad " + "y" * 10_000)

    monkeypatch.setattr(rooflow.adapters, "load_points", load_points)

    def step(log):
        batches.make_points(_member(tmp_path), {}, str(disk / "p.parquet"), log,
                            str(tmp_path / "tb"))

    log = tmp_path / "job.log"
    with pytest.raises(SystemExit) as stop:
        run_job(step, str(log))
    assert stop.value.code == 1
    assert log.read_text().splitlines()[-1].startswith(f"rooflow: error: {disk / 'p.parquet'}: "
                                                       "cannot write: No space left on device")
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]
