"""Who may change the game: reading is open, every change needs the page's CSRF token and the PIN."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import PIN, Site, make_site, record_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.web import create_app
from companion.web import security as security_module
from companion.web.context import WebContext
from companion.web.security import PinGuard, secret_key, table_pin

READS = ["/", "/timeline", "/setup", "/fix", "/games", "/join", "/scores/0", "/api/state", "/api/timeline"]
READS += ["/api/games", "/api/csrf", "/api/record", "/api/scores/0", "/api/games/1/record"]
HEADER, _ = record_lines("route-battle.jsonl")
CHANGES: list[tuple[str, Any]] = [
    ("/api/event", {"event": "adjust", "player": "Ana", "points": 1, "reason": "test"}),
    ("/api/end", {}),
    ("/api/undo", {"reason": "test"}),
    ("/api/corrections", {"op": "undo", "reason": "test"}),
    ("/api/games?abandon=1", HEADER),
]


def snapshot(site: Site) -> tuple[Any, ...]:
    return (
        site.client.get("/api/state").get_json(),
        site.client.get("/api/timeline").get_json(),
        site.client.get("/api/games").get_json(),
    )


def test_reading_is_open_to_everyone(site: Site) -> None:
    site.play("route-battle.jsonl")
    stranger = site.app.test_client()  # no cookie, no token, no PIN
    for path in READS:
        assert stranger.get(path).status_code == 200, path


@pytest.mark.parametrize(("path", "body"), CHANGES, ids=[path for path, _ in CHANGES])
def test_a_change_without_the_csrf_token_is_refused(site: Site, path: str, body: Any) -> None:
    site.play("route-battle.jsonl")
    before = snapshot(site)
    for headers in ({"X-Table-PIN": PIN}, {"X-Table-PIN": PIN, "X-CSRF-Token": "guessed"}):
        response = site.client.post(path, data=json.dumps(body), headers=headers)
        assert response.status_code == 403
        assert "CSRF token" in response.get_json()["message"]
    # a token is only good with the session it was given to
    stranger = site.app.test_client()
    response = stranger.post(path, data=json.dumps(body), headers=site.headers)
    assert response.status_code == 403
    assert snapshot(site) == before


@pytest.mark.parametrize(("path", "body"), CHANGES, ids=[path for path, _ in CHANGES])
def test_a_change_from_a_phone_that_never_joined_is_refused(site: Site, path: str, body: Any) -> None:
    site.play("route-battle.jsonl")
    before = snapshot(site)
    missing = site.client.post(path, data=json.dumps(body), headers={"X-CSRF-Token": site.token})
    assert missing.status_code == 401 and "has not joined the table" in missing.get_json()["message"]
    wrong = site.post(path, body, **{"X-Table-PIN": "0000"})
    assert wrong.status_code == 403 and wrong.get_json()["message"] == "wrong table PIN"
    assert snapshot(site) == before
    assert site.post(path, body).status_code in (200, 201)  # and with both it goes through


def test_the_pin_is_compared_in_constant_time(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = security_module.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(security_module.hmac, "compare_digest", spy)
    site.post("/api/games", HEADER, **{"X-Table-PIN": "9999"})
    assert (b"9999", PIN.encode()) in compared  # the PIN, through hmac.compare_digest
    assert any(a == site.token.encode() for a, _ in compared)  # and the CSRF token too


def test_wrong_pins_are_rate_limited(tmp_path: Path) -> None:
    now = [1000.0]
    site = make_site(tmp_path)
    guard = PinGuard(PIN, max_failures=5, window=60.0, clock=lambda: now[0])
    site.app.extensions["companion"].pins = guard
    for _ in range(5):
        assert site.post("/api/games?abandon=1", HEADER, **{"X-Table-PIN": "1111"}).status_code == 403
    locked = site.post("/api/games?abandon=1", HEADER)  # even the right PIN waits now
    assert locked.status_code == 429
    assert int(locked.headers["Retry-After"]) == 61
    assert "too many wrong PINs" in locked.get_json()["message"]
    neighbour = site.client.post(
        "/api/games?abandon=1",
        data=json.dumps(HEADER),
        headers=site.headers,
        environ_base={"REMOTE_ADDR": "10.0.0.9"},
    )
    assert neighbour.status_code == 201  # another phone is not locked out
    now[0] += 61
    assert site.post("/api/games?abandon=1", HEADER).status_code == 201
    site.table.store.close()


def test_the_secret_key_is_made_once_and_kept(tmp_path: Path) -> None:
    first = make_site(tmp_path)
    key_file = tmp_path / security_module.SECRET_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_bytes()
    assert len(key) == 32 and secret_key(tmp_path) == key
    cookie = first.client.get_cookie("session")
    assert cookie is not None
    first.table.store.close()
    # after a restart the same browser session, and so its CSRF token, still work
    again = make_site(tmp_path)
    browser = again.app.test_client()
    browser.set_cookie("session", cookie.value)
    response = browser.post("/api/games", data=json.dumps(HEADER), headers=first.headers)
    assert response.status_code == 201
    assert key_file.read_bytes() == key
    again.table.store.close()


def test_the_pin_is_made_once_and_kept(tmp_path: Path) -> None:
    pin = table_pin(tmp_path)
    assert pin.isdigit() and len(pin) == 6
    assert table_pin(tmp_path) == pin
    assert stat.S_IMODE((tmp_path / security_module.PIN_FILE).stat().st_mode) == 0o600
    assert table_pin(tmp_path, "123456") == "123456"
    for bad in ("12", "abcd", "1234567890123"):
        with pytest.raises(ValueError, match="4 to 12 digits"):
            table_pin(tmp_path, bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
event_like = st.fixed_dictionaries(
    {"event": st.sampled_from(["tile", "meeple", "roll", "end", "adjust", "x"])},
    optional={
        "player": st.sampled_from(["Ana", "Ben", None, 3, ""]),
        "at": st.lists(st.integers(-3, 3), max_size=3) | st.text(max_size=3),
        "dice": st.lists(st.integers(-1, 8), max_size=4),
        "tile": json_values,
        "feature": st.sampled_from(["N", "planet", "Q", 1]),
        "size": st.sampled_from(["small", "large", "xl"]),
        "points": st.integers(-2000, 2000),
        "reason": st.text(max_size=5),
        "op": st.sampled_from(["undo", "replace", "insert", "remove", "x"]),
        "index": st.integers(-2, 20),
        "event_": json_values,
    },
)
bodies = st.one_of(json_values, event_like, st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from([path for path, _ in CHANGES]), body=bodies)
def test_bad_bodies_get_a_4xx_with_a_message_never_a_500(site: Site, path: str, body: Any) -> None:
    if site.table.live is None:
        site.play("route-battle.jsonl", events=6)
    data = body if isinstance(body, str) else json.dumps(body)
    response = site.client.post(path, data=data, headers=site.headers)
    assert response.status_code < 500
    if response.status_code >= 400:
        answer = response.get_json()
        assert isinstance(answer["message"], str) and answer["message"]
        assert "Traceback" not in answer["message"]


def test_an_oversized_body_is_refused_with_a_message(site: Site) -> None:
    response = site.post("/api/event", "x" * 300_000)
    assert response.status_code == 413
    assert response.get_json()["error"] == 413


def test_an_internal_error_shows_no_trace(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> dict[str, Any]:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(site.table, "state", broken)
    api = site.client.get("/api/state")
    assert api.status_code == 500
    assert "secret detail" not in api.get_data(as_text=True)
    page = site.client.get("/")
    assert page.status_code == 500
    assert "secret detail" not in page.get_data(as_text=True) and "Traceback" not in page.get_data(
        as_text=True
    )


def test_security_headers_are_on_every_answer(site: Site) -> None:
    for path in ("/", "/api/state", "/static/app.css", "/nowhere"):
        headers = site.client.get(path).headers
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    cookie = site.client.get_cookie("session")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"


def test_the_live_stream_sends_the_state_then_every_change(site: Site) -> None:
    site.play("route-battle.jsonl", events=11)
    response = site.client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert next(chunks) == b"retry: 2000\n\n"
    first = next(chunks).decode()
    assert first.startswith("event: state\ndata: ")
    assert json.loads(first.split("data: ", 1)[1])["scores"] == {"Ana": 0, "Ben": 0}
    assert site.table.broadcast.count() == 1
    site.post("/api/event", {"event": "roll", "player": "Ben", "dice": [1]})
    update = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert update["scores"] == {"Ana": 4, "Ben": 1}
    response.close()
    assert site.table.broadcast.count() == 0  # a closed phone is forgotten


def test_too_many_streams_are_told_to_wait(site: Site) -> None:
    site.app.extensions["companion"].max_streams = 1
    first = site.client.get("/api/events", buffered=False)
    next(iter(first.response))
    second = site.app.test_client().get("/api/events")
    assert second.status_code == 503 and "too many scoreboards" in second.get_json()["message"]
    first.close()


def test_create_app_refuses_without_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.errors import UserError

    site = make_site(tmp_path / "state")
    monkeypatch.setenv("COMPANION_WEB_DIR", str(tmp_path))
    with pytest.raises(UserError, match="the web templates are not at"):
        create_app(WebContext(site.table, PinGuard(PIN)), b"k" * 32)
    site.table.store.close()


def test_a_secret_or_pin_left_half_written_by_a_crash_is_made_again(tmp_path: Path) -> None:
    (tmp_path / security_module.SECRET_FILE).write_bytes(b"")
    (tmp_path / security_module.PIN_FILE).write_bytes(b"12")
    key = secret_key(tmp_path)
    pin = table_pin(tmp_path)
    assert len(key) == 32 and pin.isdigit() and len(pin) == 6
    assert secret_key(tmp_path) == key and table_pin(tmp_path) == pin  # and kept from then on
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_phone_that_goes_away_frees_its_stream_at_once(site: Site) -> None:
    import socket
    import threading
    import time

    from companion.web.server import bind

    site.play("route-battle.jsonl", events=3)
    server = bind(site.app, "127.0.0.1", 0, threads=4)
    port = server.effective_port  # type: ignore[union-attr]
    threading.Thread(target=server.run, daemon=True).start()
    try:
        phones = []
        for _ in range(3):
            phone = socket.create_connection(("127.0.0.1", port))
            phone.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
            received = b""
            while b"event: state" not in received:
                received += phone.recv(65536)
            phones.append(phone)
        assert site.table.broadcast.count() == 3
        for phone in phones:
            phone.close()  # three phones reload at once, long before any keep-alive
        deadline = time.monotonic() + 5
        while site.table.broadcast.count() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert site.table.broadcast.count() == 0  # their threads are free for the new pages
    finally:
        server.close()


def test_odd_headers_and_numbers_are_a_400_not_a_500(site: Site) -> None:
    site.play("route-battle.jsonl", events=3)
    odd = site.post("/api/event", {"event": "end"}, **{"X-Base-Seq": "²"})
    assert odd.status_code == 400 and "X-Base-Seq" in odd.get_json()["message"]
    huge = site.post(
        "/api/event", '{"event": "adjust", "player": "Ana", "points": ' + "9" * 5000 + ', "reason": "x"}'
    )
    assert (
        huge.status_code == 400 and huge.get_json()["message"] == "the body holds a number too long to read"
    )
    nan = site.post("/api/event", '{"event": "roll", "player": "Ana", "dice": [NaN]}')
    assert nan.status_code == 400 and nan.get_json()["message"] == "the body: NaN is not a number JSON allows"
    # valid JSON, but no float holds it: it would be stored and exported as Infinity, not JSON
    endless = site.post(
        "/api/event",
        '{"event": "adjust", "player": "Ana", "points": 1, "reason": "x", "meta": {"c": -1e400}}',
    )
    assert endless.status_code == 400
    assert endless.get_json()["message"] == "the body: -1e400 is too large a number to keep"


def test_one_device_cannot_take_every_live_scoreboard(site: Site) -> None:
    context = site.app.extensions["companion"]
    context.max_streams_per_client = 2
    streams = [site.client.get("/api/events", buffered=False) for _ in range(2)]
    for stream in streams:
        next(iter(stream.response))
    third = site.client.get("/api/events")
    assert third.status_code == 503 and "this device has too many" in third.get_json()["message"]
    other = site.app.test_client().get(
        "/api/events", buffered=False, environ_base={"REMOTE_ADDR": "10.0.0.8"}
    )
    assert other.status_code == 200
    for stream in [*streams, other]:
        stream.close()


def test_guessing_from_many_addresses_locks_the_table(tmp_path: Path) -> None:
    now = [0.0]
    guard = PinGuard(PIN, max_failures=5, window=60.0, clock=lambda: now[0], max_total_failures=30)
    for n in range(30):
        with pytest.raises(security_module.Refused) as wrong:
            guard.check(f"10.0.0.{n}", "000000")
        assert wrong.value.status == 403
    with pytest.raises(security_module.Refused) as locked:
        guard.check("10.0.1.1", PIN)
    assert locked.value.status == 429 and "at this table" in locked.value.message
    now[0] += 61
    guard.check("10.0.1.1", PIN)  # the minute has passed


def test_a_hotspot_without_a_default_route_still_gets_a_real_address(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    from types import SimpleNamespace

    from companion.web import net

    class NoRoute(socket.socket):
        def connect(self, address: object) -> None:
            raise OSError("Network is unreachable")

    adapters = [
        SimpleNamespace(ips=[SimpleNamespace(ip="127.0.0.1"), SimpleNamespace(ip=("::1", 0, 0))]),
        SimpleNamespace(ips=[SimpleNamespace(ip="10.42.0.1"), SimpleNamespace(ip="169.254.3.3")]),
    ]
    monkeypatch.setattr(net.socket, "socket", NoRoute)
    monkeypatch.setattr(net.ifaddr, "get_adapters", lambda: adapters)
    assert net.lan_addresses() == ["10.42.0.1"]
    assert net.page_urls("0.0.0.0", 8000)[0] == "http://10.42.0.1:8000/"


def test_the_join_page_names_mdns_only_once_it_is_registered(site: Site) -> None:
    assert ".local" not in site.client.get("/join").get_data(as_text=True)
    site.app.extensions["companion"].mdns_name = "table-companion.local:8000"
    assert "http://table-companion.local:8000/" in site.client.get("/join").get_data(as_text=True)
