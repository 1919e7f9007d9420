#!/usr/bin/env bash
# Installs Table Companion as a systemd service on 64-bit Raspberry Pi OS Bookworm (Debian 12)
# or Trixie (Debian 13), from the checkout this script sits in. Run again to update.
#
#   sudo hardware/install.sh             install or update
#   hardware/install.sh --dry-run        print each command that would change the system instead
#                                        of running it (read-only checks still run; no root needed)
#
# docs/install.md says what goes where, how to update and how to uninstall.
set -euo pipefail

readonly SERVICE=table-companion
readonly SERVICE_USER=table-companion
readonly PREFIX=/opt/table-companion
readonly SOURCE_COPY=$PREFIX/src
readonly VENV=$PREFIX/venv
readonly CONFIG_DIR=/etc/table-companion
readonly CONFIG=$CONFIG_DIR/config.toml
readonly STATE_DIR=/var/lib/table-companion
readonly UNIT_PATH=/etc/systemd/system/$SERVICE.service
readonly JOURNALD_DROP_IN=/etc/systemd/journald.conf.d/$SERVICE.conf
readonly SCOREBOARD_PORT=8000
# The Raspberry Pi OS packages: picamera2 and libcamera's bindings come only from apt (they
# match the kernel's camera stack), lgpio is gpiozero's pin library on the Pi 5 and Pi 4.
readonly APT_PACKAGES=(python3-venv python3-numpy python3-picamera2 python3-libcamera python3-lgpio)

CHECKOUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly CHECKOUT
# Tests point these at fake values; on a Pi they are read from the system.
OS_RELEASE=${TABLE_COMPANION_OS_RELEASE:-/etc/os-release}
ARCH=${TABLE_COMPANION_ARCH:-$(dpkg --print-architecture 2>/dev/null || uname -m)}
readonly OS_RELEASE ARCH

# Fails, naming it, when the venv's numpy is not the one apt installed.
readonly NUMPY_IS_THE_SYSTEMS='import numpy, sys; where = numpy.__file__; sys.exit(0 if where.startswith("/usr/lib/python3/dist-packages/") else f"numpy {numpy.__version__} at {where} shadows the system numpy that picamera2 needs")'

DRY_RUN=0

usage() {
    sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

die() {
    echo "install.sh: $*" >&2
    exit 1
}

step() {
    printf '\n== %s\n' "$*"
}

# The words of a command as a shell would take them back, quoted only where they need it.
quoted() {
    local word line=""
    for word in "$@"; do
        if [[ $word =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then
            line+=" $word"
        elif [[ $word != *"'"* ]]; then
            line+=" '$word'"
        else
            line+=" $(printf '%q' "$word")"
        fi
    done
    printf '%s' "${line# }"
}

# Runs a command that changes the system, or only prints it with --dry-run.
run() {
    if ((DRY_RUN)); then
        echo "+ $(quoted "$@")"
    else
        "$@"
    fi
}

os_release_field() {
    # Read, not sourced: os-release is shell-like but nothing in it should be executed as root.
    sed -n "s/^$1=//p" "$OS_RELEASE" | head -n 1 | tr -d "\"'"
}

parse_arguments() {
    while (($#)); do
        case $1 in
            --dry-run) DRY_RUN=1 ;;
            -h | --help)
                usage
                exit 0
                ;;
            *)
                usage >&2
                echo "install.sh: unknown argument: $1" >&2
                exit 2
                ;;
        esac
        shift
    done
}

check_system() {
    if ((!DRY_RUN && EUID != 0)); then
        die "run as root: sudo $0 (or $0 --dry-run to see what it would do)"
    fi
    [[ -r $OS_RELEASE ]] || die "cannot read $OS_RELEASE: Raspberry Pi OS (Debian) is needed"
    local id id_like name
    id=$(os_release_field ID)
    id_like=$(os_release_field ID_LIKE)
    name=$(os_release_field PRETTY_NAME)
    CODENAME=$(os_release_field VERSION_CODENAME)
    if [[ $id != debian && " $id_like " != *" debian "* ]]; then
        die "this is ${name:-$id}, not Debian: Raspberry Pi OS Bookworm or Trixie is needed"
    fi
    case $CODENAME in
        bookworm | trixie) ;;
        *) die "Debian release '${CODENAME:-unknown}' (${name:-?}) is not supported: Raspberry Pi OS Bookworm (Debian 12) or Trixie (Debian 13) is needed" ;;
    esac
    case $ARCH in
        arm64 | aarch64 | amd64 | x86_64) ;;
        *) die "$ARCH is not supported: install the 64-bit Raspberry Pi OS (onnxruntime publishes no 32-bit ARM wheels)" ;;
    esac
    CONSTRAINTS=$SOURCE_COPY/hardware/constraints-$CODENAME.txt
    [[ -f $CHECKOUT/hardware/constraints-$CODENAME.txt ]] || die "$CHECKOUT/hardware/constraints-$CODENAME.txt is missing"
    [[ -f $CHECKOUT/hardware/config.example.toml ]] || die "$CHECKOUT/hardware/config.example.toml is missing"
}

install_packages() {
    step "Debian packages"
    run apt-get update
    if ! run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"; then
        die "apt-get could not install ${APT_PACKAGES[*]}: python3-picamera2, python3-libcamera and python3-lgpio come from the Raspberry Pi OS repository (archive.raspberrypi.com)"
    fi
}

create_user() {
    step "the $SERVICE_USER user"
    # Raspberry Pi OS has a gpio group owning /dev/gpiochip*; plain Debian has not.
    if ! getent group gpio >/dev/null; then
        run groupadd --system gpio
    fi
    # video owns /dev/video*, /dev/media* and, on Raspberry Pi OS, /dev/dma_heap/* (its udev rules).
    if id -u "$SERVICE_USER" >/dev/null 2>&1; then
        run usermod --append --groups video,gpio "$SERVICE_USER"
    else
        run useradd --system --user-group --groups video,gpio --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "Table Companion service" "$SERVICE_USER"
    fi
}

copy_checkout() {
    step "the program in $SOURCE_COPY"
    # The companion finds its models and web pages next to its package, so it is installed
    # editable from a root-owned copy that stays put whatever happens to this checkout.
    if [[ $CHECKOUT == "$SOURCE_COPY" ]]; then
        echo "running from $SOURCE_COPY itself: nothing to copy"
        return
    fi
    local staging=$SOURCE_COPY.new
    run install -d -m 0755 "$PREFIX"
    run rm -rf "$staging" "$SOURCE_COPY.old"
    run install -d -m 0755 "$staging"
    local exclude=(--exclude=./.git --exclude='./.venv*' --exclude=./build --exclude=./dist --exclude=./out
        --exclude='*.egg-info' --exclude=__pycache__ --exclude=.pytest_cache --exclude=.mypy_cache
        --exclude=.ruff_cache --exclude=.hypothesis)
    if ((DRY_RUN)); then
        echo "+ $(quoted tar -C "$CHECKOUT" "${exclude[@]}" -cf - .) | $(quoted tar -C "$staging" --no-same-owner -xf -)"
    else
        tar -C "$CHECKOUT" "${exclude[@]}" -cf - . | tar -C "$staging" --no-same-owner -xf -
    fi
    if [[ -d $SOURCE_COPY ]]; then
        run mv "$SOURCE_COPY" "$SOURCE_COPY.old"
    fi
    run mv "$staging" "$SOURCE_COPY"
    run rm -rf "$SOURCE_COPY.old"
}

install_venv() {
    step "the virtual environment in $VENV"
    # --system-site-packages: picamera2, libcamera and lgpio from apt are importable in the venv.
    # Run on an existing venv it only refreshes it, so an update keeps what is installed.
    run python3 -m venv --system-site-packages "$VENV"
    run "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade \
        --constraint "$CONSTRAINTS" --editable "$SOURCE_COPY"
    # A numpy from PyPI in the venv would shadow the one picamera2's compiled parts were built for.
    run "$VENV/bin/python" -c "$NUMPY_IS_THE_SYSTEMS"
}

install_config() {
    step "the configuration in $CONFIG"
    run install -d -m 0755 "$CONFIG_DIR"
    if [[ -e $CONFIG ]]; then
        echo "keeping the existing $CONFIG"
    else
        # Readable by the service's group only: it may hold the PIN and MQTT credentials.
        run install -m 0640 -o root -g "$SERVICE_USER" "$SOURCE_COPY/hardware/config.example.toml" "$CONFIG"
    fi
}

stop_service() {
    # An update: the running service must not load half-replaced modules, and doctor needs the
    # camera, which the service holds while it runs.
    if systemctl is-active --quiet "$SERVICE.service" 2>/dev/null; then
        step "stopping the running $SERVICE service for the update"
        run systemctl stop "$SERVICE.service"
    fi
}

install_service() {
    step "the $SERVICE service"
    run install -m 0644 "$SOURCE_COPY/systemd/$SERVICE.service" "$UNIT_PATH"
    run systemctl daemon-reload
    # The journal's bounds (systemd/journald-table-companion.conf), read when journald restarts.
    run install -D -m 0644 "$SOURCE_COPY/systemd/journald-$SERVICE.conf" "$JOURNALD_DROP_IN"
    run systemctl restart systemd-journald.service
}

start_service() {
    step "starting the $SERVICE service"
    # Type=notify: this returns once the companion says it is ready, or fails if it cannot start.
    if ! run systemctl enable --now "$SERVICE.service"; then
        die "the service did not start; its log: journalctl -u $SERVICE -n 50"
    fi
}

make_state_dir() {
    step "the state directory $STATE_DIR"
    # systemd's StateDirectory= would make it only when the service first starts, after doctor,
    # which runs in it; made here as the unit makes it (owner and mode), systemd keeps it.
    run install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$STATE_DIR"
}

run_doctor() {
    step "companion doctor"
    # As the service's user, in its working directory, so it meets the same permissions.
    if ! run runuser -u "$SERVICE_USER" -- env --chdir="$STATE_DIR" \
        "$VENV/bin/companion" doctor --config "$CONFIG"; then
        echo "companion doctor found problems (above); the service is installed and starts all the same" >&2
    fi
}

print_where() {
    local addresses address
    addresses=$(hostname -I 2>/dev/null || true)
    step "done"
    echo "The scoreboard (port $SCOREBOARD_PORT unless $CONFIG says another):"
    echo "  http://$SERVICE.local:$SCOREBOARD_PORT/"
    for address in $addresses; do
        [[ $address == *:* ]] && continue # the IPv6 addresses are long to type on a phone
        echo "  http://$address:$SCOREBOARD_PORT/"
    done
    echo "Status and log: systemctl status $SERVICE; journalctl -u $SERVICE -f"
}

main() {
    parse_arguments "$@"
    check_system
    # Everything created here is readable by the service whatever root's own umask is.
    umask 022
    if ((DRY_RUN)); then
        echo "dry run on $CODENAME ($ARCH): printing the commands instead of running them"
    fi
    install_packages
    create_user
    stop_service
    copy_checkout
    install_venv
    install_config
    install_service
    make_state_dir
    run_doctor
    start_service
    print_where
}

main "$@"
