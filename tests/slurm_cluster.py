"""A real, throwaway single-node Slurm cluster for tests (root only).

Starts munged, slurmctld and slurmd on 127.0.0.1 with every key, state file, log and socket
under one private temporary folder; jobs are real `sbatch` jobs run by slurmd on this machine.
No accounting daemon: job status comes from `squeue` (`MinJobAge=300` keeps finished jobs
visible), so Snakemake must be run with `--slurm-status-command squeue`.

Facts this relies on (checked with Debian 12: Slurm 22.05.8, munge 0.5.15,
snakemake-executor-plugin-slurm 2.8.0, -jobstep 0.6.1):
- the jobstep plugin drops `SLURM_CONF` for its inner `srun`, so the generated slurm.conf must
  also be reachable as /etc/slurm/slurm.conf (a symlink, removed on stop only if we made it);
- munged runs as the munge user and needs its socket folder to be 0755;
- without `scancel` before stopping, a slurmstepd can outlive the cluster.

Every command, daemons included, runs under `timeout -s KILL`, so nothing here can hang a test
or outlive it by more than `DAEMON_LIFETIME_S`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PACKAGES = ("munge", "slurmctld", "slurmd", "slurm-client")
BINARIES = (
    *("munge", "munged", "mungekey"),
    *("slurmctld", "slurmd", "sinfo", "sbatch", "srun", "squeue", "scancel", "scontrol"),
)
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
TEMP_PREFIX = "rooflow-slurm-"
PARTITION = "rooflow"
DAEMON_LIFETIME_S = 1800
# Debian keeps the daemons in /usr/sbin, which a non-login PATH may lack.
_SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


class SlurmUnavailable(RuntimeError):
    """This machine cannot run the cluster (not root, no apt, install failed); says why."""


def run(cmd: list[str], timeout_s: int, **kwargs) -> subprocess.CompletedProcess:
    """Run `cmd` under `timeout -s KILL timeout_s`, capturing text output; never raises on rc."""
    return subprocess.run(
        ["timeout", "-s", "KILL", str(timeout_s), *cmd],
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )


def _missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b, path=_SEARCH_PATH) is None]


def prepare_host() -> None:
    """Make sure this host can run the cluster: root, packages installed, slurm.conf free.

    Installs the Debian packages with apt-get if a binary is missing, and clears a dangling
    /etc/slurm/slurm.conf link left by a killed earlier run. Raises SlurmUnavailable when not
    root, when apt-get is absent or fails (e.g. no package registry access), or when
    /etc/slurm/slurm.conf belongs to another Slurm.
    """
    if os.geteuid() != 0:
        raise SlurmUnavailable("needs root to start slurmd and munged")
    if _missing_binaries():
        _install_packages()
    if SYSTEM_CONF.is_symlink() and not SYSTEM_CONF.exists():
        if os.readlink(SYSTEM_CONF).startswith(str(Path(tempfile.gettempdir()) / TEMP_PREFIX)):
            SYSTEM_CONF.unlink()
    if SYSTEM_CONF.exists() or SYSTEM_CONF.is_symlink():
        raise SlurmUnavailable(f"{SYSTEM_CONF} exists: another Slurm is configured on this host")


def _install_packages() -> None:
    if shutil.which("apt-get") is None:
        raise SlurmUnavailable(f"missing {_missing_binaries()} and no apt-get to install them")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES],
    ):
        done = run(cmd, 600, env=env)
        if done.returncode != 0:
            raise SlurmUnavailable(
                f"`{' '.join(cmd)}` exited {done.returncode}: {done.stderr.strip()[-500:]}"
            )
    if missing := _missing_binaries():
        raise SlurmUnavailable(f"still missing after apt-get install: {missing}")


def _free_ports(count: int) -> list[int]:
    """Distinct free TCP ports on 127.0.0.1 (held open together so none repeats)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _node_line(node: str) -> str:
    """NodeName line from `slurmd -C`, with RealMemory lowered so slurmd never reports less."""
    out = run(["slurmd", "-C"], 30, env={**os.environ, "PATH": _SEARCH_PATH}).stdout
    fields = dict(kv.split("=", 1) for kv in out.splitlines()[0].split())
    memory = int(fields["RealMemory"]) * 9 // 10
    hardware = " ".join(
        f"{k}={fields[k]}"
        for k in ("CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore")
    )
    return f"NodeName={node} NodeAddr=127.0.0.1 {hardware} RealMemory={memory} State=UNKNOWN"


class SlurmCluster:
    """munged + slurmctld + slurmd on 127.0.0.1, all state under `self.root`.

    Use as a context manager, or call start() and then stop() in a `finally`. `env` is the
    environment for clients (sbatch, squeue, snakemake --executor slurm).
    """

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
        self.root.chmod(0o755)  # munge and slurm users must traverse it
        self.conf = self.root / "slurm.conf"
        self.node = socket.gethostname().split(".")[0]
        self.env = {**os.environ, "PATH": _SEARCH_PATH, "SLURM_CONF": str(self.conf)}
        self._daemons: list[tuple[str, subprocess.Popen]] = []
        self._linked_system_conf = False

    def __enter__(self) -> SlurmCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- start ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start munged, slurmctld and slurmd; return once the node is idle (or raise)."""
        self._link_system_conf()
        socket_path = self._start_munge()
        self._write_conf(socket_path)
        for sub in ("state", "spool", "log"):
            (self.root / sub).mkdir()
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf), "-N", self.node])
        self._wait_for(
            lambda: self.client(["sinfo", "-h", "-N", "-o", "%T"]).stdout.strip() == "idle",
            "node idle in sinfo",
        )

    def _link_system_conf(self) -> None:
        SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SYSTEM_CONF.symlink_to(self.conf)  # fails if present: prepare_host() checked it is free
        self._linked_system_conf = True

    def _start_munge(self) -> Path:
        folder = self.root / "munge"
        folder.mkdir(mode=0o755)
        key = folder / "munge.key"
        done = run(["mungekey", "--create", f"--keyfile={key}"], 30, env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"mungekey failed: {done.stderr}")
        shutil.chown(folder, "munge", "munge")
        shutil.chown(key, "munge", "munge")
        key.chmod(0o400)
        socket_path = folder / "munge.socket"
        self._spawn(
            "munged",
            [
                "munged", "--foreground",
                f"--socket={socket_path}", f"--key-file={key}",
                f"--log-file={folder / 'munged.log'}", f"--pid-file={folder / 'munged.pid'}",
                f"--seed-file={folder / 'munged.seed'}",
            ],
            user="munge",
        )  # fmt: skip
        self._wait_for(
            lambda: run(["munge", "-n", f"--socket={socket_path}"], 10).returncode == 0,
            "munged answering",
        )
        return socket_path

    def _write_conf(self, munge_socket: Path) -> None:
        r = self.root
        ctld_port, slurmd_port = _free_ports(2)
        self.conf.write_text(
            f"""\
ClusterName=rooflow
SlurmctldHost={self.node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=300
DefMemPerCPU=1000
{_node_line(self.node)}
PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
        )

    def _spawn(self, name: str, cmd: list[str], user: str | None = None) -> None:
        with open(self.root / f"{name}.out", "wb") as log:
            proc = subprocess.Popen(
                ["timeout", "-s", "KILL", str(DAEMON_LIFETIME_S), *cmd],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,  # a Ctrl-C in pytest reaches teardown, not the daemons
                user=user,
            )
        self._daemons.append((name, proc))

    def _wait_for(self, ready, what: str, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while not ready():
            for name, proc in self._daemons:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited {proc.returncode}\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}\n{self.log_tail()}")
            time.sleep(0.2)

    def client(self, cmd: list[str], timeout_s: int = 30) -> subprocess.CompletedProcess:
        """Run a Slurm client command (sinfo, squeue, ...) against this cluster."""
        return run(cmd, timeout_s, env=self.env)

    # -- stop -------------------------------------------------------------------------------

    def stop(self) -> None:
        """Cancel leftover jobs, stop every daemon we started, remove our files. Idempotent."""
        if any(name == "slurmctld" and p.poll() is None for name, p in self._daemons):
            self._cancel_jobs()
        for _name, proc in reversed(self._daemons):
            # SIGTERM to `timeout` is forwarded to the daemon it watches.
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
        self._daemons.clear()
        if self._linked_system_conf:
            SYSTEM_CONF.unlink(missing_ok=True)
            self._linked_system_conf = False
        shutil.rmtree(self.root, ignore_errors=True)

    def _cancel_jobs(self) -> None:
        jobs = self.client(["squeue", "-h", "-t", "all", "-o", "%A"]).stdout.split()
        if jobs:
            self.client(["scancel", *jobs])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            active = self.client(["squeue", "-h", "-t", "PD,R,CG", "-o", "%A"]).stdout.split()
            if not active:
                return
            time.sleep(0.5)

    def log_tail(self, lines: int = 20) -> str:
        """Last lines of each daemon log, for failure messages."""
        out = []
        for path in sorted(self.root.glob("**/*.log")) + sorted(self.root.glob("*.out")):
            text = path.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {path.name}\n" + "\n".join(text))
        return "\n".join(out)
