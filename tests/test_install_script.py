"""hardware/install.sh with --dry-run on fake os-release files: the commands it would run.

The script is never run for real here: --dry-run prints each command that would change the
system. Its checks (root, Debian release, architecture) are run for real, and refusals must
come before anything is printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "hardware" / "install.sh"
VENV = "/opt/table-companion/venv"
SOURCE_COPY = "/opt/table-companion/src"

RASPBERRY_PI_OS = {
    "bookworm": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
    'VERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n',
    "trixie": 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\nVERSION_ID="13"\n'
    'VERSION="13 (trixie)"\nVERSION_CODENAME="trixie"\nID=debian\n',
    "bullseye": 'PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nVERSION_ID="11"\nVERSION_CODENAME=bullseye\n'
    "ID=debian\n",
    "fedora": 'NAME="Fedora Linux"\nVERSION_ID=40\nID=fedora\nPRETTY_NAME="Fedora Linux 40"\n',
    "raspbian-bookworm": 'PRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"\nID=raspbian\nID_LIKE=debian\n'
    "VERSION_CODENAME=bookworm\n",
}


def run_script(
    tmp_path: Path,
    release: str,
    *args: str,
    arch: str = "arm64",
    user: list[str] | None = None,
    script: Path = SCRIPT,
) -> subprocess.CompletedProcess[str]:
    os_release = tmp_path / f"os-release-{release}"
    os_release.write_text(RASPBERRY_PI_OS[release], encoding="utf-8")
    env = {**os.environ, "TABLE_COMPANION_OS_RELEASE": str(os_release), "TABLE_COMPANION_ARCH": arch}
    return subprocess.run(
        [*(user or []), "bash", str(script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def commands(output: str) -> list[str]:
    """The commands a dry run printed, without their "+ "."""
    return [line[2:] for line in output.splitlines() if line.startswith("+ ")]


def index_of(lines: list[str], pattern: str) -> int:
    found = [number for number, line in enumerate(lines) if re.search(pattern, line)]
    assert len(found) == 1, f"{pattern!r} matched {len(found)} commands:\n" + "\n".join(lines)
    return found[0]


@pytest.mark.parametrize("release", ["bookworm", "trixie"])
def test_dry_run_installs_the_service(tmp_path: Path, release: str) -> None:
    done = run_script(tmp_path, release, "--dry-run")
    assert done.returncode == 0, done.stderr
    lines = commands(done.stdout)

    apt = lines[index_of(lines, r"^apt-get install ")]
    assert "--no-install-recommends" in apt.split()
    assert {"python3-venv", "python3-picamera2", "python3-libcamera", "python3-lgpio"} <= set(apt.split())
    assert "mosquitto" not in apt

    venv = index_of(lines, r" -m venv ")
    assert lines[venv] == f"python3 -m venv --system-site-packages {VENV}"
    pip = index_of(lines, r"-m pip install ")
    constraints = f"--constraint {SOURCE_COPY}/hardware/constraints-{release}.txt"
    assert constraints in lines[pip]
    assert lines[pip].startswith(f"{VENV}/bin/python -m pip install ")
    assert lines[pip].endswith(f"--editable {SOURCE_COPY}")

    unit = index_of(lines, r"^install .*table-companion\.service ")
    assert lines[unit] == (
        f"install -m 0644 {SOURCE_COPY}/systemd/table-companion.service "
        "/etc/systemd/system/table-companion.service"
    )
    reload = index_of(lines, r"^systemctl daemon-reload$")
    journald = index_of(lines, r"journald\.conf\.d")
    assert lines[journald] == (
        f"install -D -m 0644 {SOURCE_COPY}/systemd/journald-table-companion.conf "
        "/etc/systemd/journald.conf.d/table-companion.conf"
    )
    assert journald < index_of(lines, r"^systemctl restart systemd-journald\.service$")
    enable = index_of(lines, r"^systemctl enable --now table-companion\.service$")
    doctor = index_of(lines, r"companion doctor")
    state_dir = index_of(lines, r"^install -d .*/var/lib/table-companion$")
    # Each step needs the one before it: packages, venv, program, unit, reload, doctor (while the
    # camera is free), start.
    assert index_of(lines, r"^apt-get install ") < venv < pip < unit < reload < doctor < enable
    assert "runuser -u table-companion" in lines[doctor]
    # doctor runs in the state directory, which systemd would make only when the service starts
    assert "--chdir=/var/lib/table-companion" in lines[doctor]
    assert state_dir < doctor
    owner = "-o table-companion -g table-companion"
    assert lines[state_dir] == f"install -d -m 0750 {owner} /var/lib/table-companion"

    assert index_of(lines, r"(useradd|usermod) ") < pip
    assert "The scoreboard" in done.stdout
    assert "http://table-companion.local:8000/" in done.stdout


def test_a_new_user_is_a_system_user_in_video_and_gpio(tmp_path: Path) -> None:
    done = run_script(tmp_path, "bookworm", "--dry-run")
    user_line = commands(done.stdout)[index_of(commands(done.stdout), r"^(useradd|usermod) ")]
    words = user_line.split()
    assert "--groups" in words and words[words.index("--groups") + 1] == "video,gpio"
    assert words[-1] == "table-companion"
    if words[0] == "useradd":
        assert {"--system", "--user-group", "--no-create-home"} <= set(words)
        assert words[words.index("--shell") + 1] == "/usr/sbin/nologin"


def test_the_config_is_installed_only_when_missing(tmp_path: Path) -> None:
    done = run_script(tmp_path, "bookworm", "--dry-run")
    config_copy = re.compile(r"^(install|cp) .* /etc/table-companion/config\.toml$")
    copies = [line for line in commands(done.stdout) if config_copy.match(line)]
    if Path("/etc/table-companion/config.toml").exists():
        assert copies == []
        assert "keeping the existing /etc/table-companion/config.toml" in done.stdout
    else:
        assert copies == [
            f"install -m 0640 -o root -g table-companion {SOURCE_COPY}/hardware/config.example.toml "
            "/etc/table-companion/config.toml"
        ]


def test_raspbian_32_bit_naming_is_read_as_debian_but_its_architecture_refused(tmp_path: Path) -> None:
    assert run_script(tmp_path, "raspbian-bookworm", "--dry-run").returncode == 0
    refused = run_script(tmp_path, "raspbian-bookworm", "--dry-run", arch="armhf")
    assert refused.returncode != 0
    assert "armhf is not supported" in refused.stderr
    assert "64-bit" in refused.stderr
    assert commands(refused.stdout) == []


@pytest.mark.parametrize(("release", "named"), [("bullseye", "bullseye"), ("fedora", "Fedora Linux 40")])
def test_an_unsupported_system_is_refused_clearly(tmp_path: Path, release: str, named: str) -> None:
    done = run_script(tmp_path, release, "--dry-run")
    assert done.returncode != 0
    assert named in done.stderr
    assert "Bookworm" in done.stderr and "Trixie" in done.stderr
    assert commands(done.stdout) == []


def test_a_missing_os_release_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "TABLE_COMPANION_OS_RELEASE": str(tmp_path / "nothing")}
    done = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "cannot read" in done.stderr


def test_without_root_a_real_run_is_refused_before_anything(tmp_path: Path) -> None:
    # As root, drop to nobody for this one; a non-root run refuses by itself.
    user: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing to drop privileges")
        user = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        tmp_path.chmod(0o755)
    # a copy anybody may read: the checkout and pytest's folders may lie where only root reads
    readable = Path(tempfile.mkdtemp())
    readable.chmod(0o755)
    script = readable / "install.sh"
    shutil.copy(SCRIPT, script)
    script.chmod(0o755)
    try:
        done = run_script(readable, "bookworm", user=user, script=script)
    finally:
        shutil.rmtree(readable)
    assert done.returncode != 0
    assert "run as root" in done.stderr
    assert done.stdout == ""


def test_unknown_arguments_are_refused_and_help_is_printed(tmp_path: Path) -> None:
    refused = run_script(tmp_path, "bookworm", "--dry-runn")
    assert refused.returncode == 2
    assert "unknown argument: --dry-runn" in refused.stderr
    helped = run_script(tmp_path, "bookworm", "--help")
    assert helped.returncode == 0
    assert "--dry-run" in helped.stdout
    assert commands(helped.stdout) == []


def test_a_dry_run_changes_nothing(tmp_path: Path) -> None:
    watched = [
        Path("/opt/table-companion"),
        Path("/etc/table-companion"),
        Path("/etc/systemd/system/table-companion.service"),
    ]
    before = {path: path.exists() for path in watched}
    assert run_script(tmp_path, "trixie", "--dry-run").returncode == 0
    assert {path: path.exists() for path in watched} == before


def test_each_release_has_constraints_that_keep_the_system_numpy() -> None:
    def pins(release: str) -> dict[str, str]:
        text = (REPO / "hardware" / f"constraints-{release}.txt").read_text(encoding="utf-8")
        found = {}
        for line in text.splitlines():
            requirement = line.split("#")[0].strip()
            if requirement:
                name = re.split(r"[<>=!~ ]", requirement, maxsplit=1)[0]
                found[name] = requirement[len(name) :]
        return found

    bookworm = pins("bookworm")
    # python3-numpy 1.24 on Bookworm; OpenCV 4.12 and later need numpy 2.
    assert bookworm == {"numpy": "<2", "opencv-python-headless": "==4.11.0.86"}
    trixie = pins("trixie")
    assert trixie["numpy"] == ">=2,<3"
    assert trixie["opencv-python-headless"] == "==4.12.0.88"
    assert (REPO / "hardware" / "config.example.toml").is_file()


def test_the_script_parses() -> None:
    done = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert os.access(SCRIPT, os.X_OK), "install.sh must be executable"


def test_shellcheck_finds_nothing() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is missing; on Debian: apt-get install shellcheck")
    done = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
