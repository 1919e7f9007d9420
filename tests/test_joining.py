"""Joining the table from a phone: the first phone with a tap, the others by a player's invite or
the table PIN; a phone that never joined changes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import PIN, Site, make_site, record_lines
from flask.testing import FlaskClient

from companion.web.pairing import FIRST_JOIN, INVITE_BITS, INVITE_HOURS, Pairing

HEADER, EVENTS = record_lines("route-three.jsonl")


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def phone(site: Site) -> tuple[FlaskClient, str]:
    """Another phone: its own session and CSRF token, no PIN."""
    client = site.app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    return client, token


def post(client: FlaskClient, token: str, path: str, body: Any) -> Any:
    return client.post(path, data=json.dumps(body), headers={"X-CSRF-Token": token})


def pairing_of(site: Site) -> Pairing:
    pairing: Pairing = site.app.extensions["companion"].pairing
    return pairing


def test_a_phone_that_never_joined_changes_nothing(site: Site) -> None:
    site.play("route-three.jsonl", events=2)
    client, token = phone(site)
    before = site.client.get("/api/state").get_json()
    for path, body in [
        ("/api/event", EVENTS[2]),
        ("/api/end", {}),
        ("/api/undo", {"reason": "no"}),
        ("/api/corrections", {"op": "remove", "index": 1, "reason": "no"}),
        ("/api/games?abandon=1", HEADER),
        ("/api/join/start-over", {}),
    ]:
        refused = post(client, token, path, body)
        assert refused.status_code == 401, path
        assert "has not joined the table" in refused.get_json()["message"]
        assert "Traceback" not in refused.get_data(as_text=True)
    assert site.client.get("/api/state").get_json() == before


def test_fix_and_setup_say_join_first_before_anything_is_typed(site: Site) -> None:
    site.play("route-three.jsonl", events=2)
    client, token = phone(site)
    for path in ("/fix", "/setup"):
        page = client.get(path).get_data(as_text=True)
        assert 'id="not-joined"' in page and f'href="/join?next={path}"' in page, path
    assert post(client, token, "/api/join", {"pin": PIN}).status_code == 200
    for path in ("/fix", "/setup"):
        assert 'id="not-joined"' not in client.get(path).get_data(as_text=True), path


def test_every_route_that_changes_something_asks_for_a_joined_phone(site: Site) -> None:
    client, token = phone(site)
    open_to_all = {"/api/join"}  # how a phone joins
    changing = sorted(
        {
            rule.rule
            for rule in site.app.url_map.iter_rules()
            if rule.methods and {"POST", "PUT", "PATCH", "DELETE"} & rule.methods and not rule.arguments
        }
        - open_to_all
    )
    assert "/api/event" in changing and "/api/join/start-over" in changing
    for path in changing:
        answer = post(client, token, path, {})
        assert answer.status_code == 401, path


def test_the_first_phone_joins_with_a_tap_and_then_invites_the_others(site: Site) -> None:
    first, token = phone(site)
    page = first.get("/join").get_data(as_text=True)
    assert "Join as the first phone" in page and "table-pin" not in page
    assert post(first, token, "/api/join", {"first": True}).get_json() == {"joined": True}
    assert post(first, token, "/api/games", HEADER).status_code == 201  # no PIN asked
    assert post(first, token, "/api/event", EVENTS[0]).status_code == 200
    page = first.get("/join").get_data(as_text=True)
    assert f'<b id="table-pin">{PIN}</b>' in page and 'id="invite-qr"' in page
    invite = re.search(r"/join\?invite=([\w-]+)", page)
    assert invite is not None
    second, token2 = phone(site)
    assert "Join as the first phone" not in second.get("/join").get_data(as_text=True)
    late = post(second, token2, "/api/join", {"first": True})
    assert late.status_code == 403 and "already has players" in late.get_json()["message"]
    offered = second.get(f"/join?invite={invite.group(1)}").get_data(as_text=True)
    assert "A player invited this phone" in offered
    assert post(second, token2, "/api/join", {"invite": invite.group(1)}).status_code == 200
    assert post(second, token2, "/api/event", EVENTS[1]).status_code == 200
    assert site.client.get("/api/state").get_json()["events"] == 2


def test_an_invite_not_the_tables_or_expired_is_refused(tmp_path: Path) -> None:
    clock = Clock()
    pairing = Pairing(tmp_path, clock=clock)
    token = pairing.invite().token
    assert len(token) >= INVITE_BITS // 6 and pairing.accepts(token)
    assert not pairing.accepts(token[:-1] + ("A" if token[-1] != "A" else "B"))
    clock.now += INVITE_HOURS * 3600 + 1
    assert not pairing.accepts(token)
    assert pairing.invite().token != token  # a fresh one is drawn for the next phone to scan


def test_a_wrong_invite_on_the_page_and_in_the_api(site: Site) -> None:
    client, token = phone(site)
    assert "not the table's, or has expired" in client.get("/join?invite=nope").get_data(as_text=True)
    refused = post(client, token, "/api/join", {"invite": "nope"})
    assert refused.status_code == 403 and post(client, token, "/api/event", EVENTS[0]).status_code == 401


def test_the_first_phone_window_closes_with_uptime_and_stays_closed_once_someone_joined(
    tmp_path: Path,
) -> None:
    uptime, wall = Clock(), Clock()
    pairing = Pairing(tmp_path, clock=wall, uptime=uptime)
    assert pairing.first_join_open()
    wall.now += 10 * FIRST_JOIN  # the Pi sets its clock after boot: the window stays open
    assert pairing.first_join_open()
    uptime.now += FIRST_JOIN + 1
    assert not pairing.first_join_open() and pairing.claim_first() is None
    fresh = Pairing(tmp_path, clock=wall, uptime=uptime)  # a restart: open again, nobody joined
    mark = fresh.claim_first()
    assert mark is not None and fresh.claim_first() is None  # only one phone gets in this way
    again = Pairing(tmp_path, clock=wall, uptime=uptime)
    assert not again.first_join_open() and again.is_member(mark)  # joined phones stay joined


def test_companion_join_reads_the_pairing_without_writing_it(tmp_path: Path) -> None:
    reader = Pairing(tmp_path, writable=False)
    assert not (tmp_path / "pairing.json").exists() and reader.invite().token
    Pairing(tmp_path).invite()
    saved = (tmp_path / "pairing.json").read_bytes()
    Pairing(tmp_path, writable=False).invite()
    assert (tmp_path / "pairing.json").read_bytes() == saved


def test_joining_with_the_pin_is_rate_limited(site: Site) -> None:
    client, token = phone(site)
    for _ in range(5):
        assert post(client, token, "/api/join", {"pin": "0000"}).status_code == 403
    limited = post(client, token, "/api/join", {"pin": PIN})
    assert limited.status_code == 429 and "Retry-After" in limited.headers
    same_address, token2 = phone(site)  # the limit is per address: the same one waits too
    assert post(same_address, token2, "/api/join", {"pin": PIN}).status_code == 429
    other = site.app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    token3 = other.get("/api/csrf").get_json()["token"]
    assert post(other, token3, "/api/join", {"pin": PIN}).status_code == 200


def test_joining_needs_the_pages_token_and_one_way_to_join(site: Site) -> None:
    client, token = phone(site)
    assert client.post("/api/join", data=json.dumps({"first": True})).status_code == 403
    for body in ({}, {"pin": PIN, "first": True}, {"first": False}, {"pin": 1234}, {"invite": 1}, []):
        answer = post(client, token, "/api/join", body)
        assert answer.status_code == 400, body
    assert post(client, token, "/api/join", {"colour": "red"}).status_code == 400
    # each refusal names what was sent
    for body, status, says in [
        ({"leave": False}, 400, '"leave" is true when it is sent'),
        ({"first": "yes"}, 400, '"first" is true when it is sent'),
        ({"pin": ""}, 401, 'send it as "pin"'),
    ]:
        answer = post(client, token, "/api/join", body)
        assert answer.status_code == status and says in answer.get_json()["message"], body


def test_starting_over_makes_every_other_phone_join_again(site: Site) -> None:
    host, token = phone(site)
    guest, token2 = phone(site)
    assert post(host, token, "/api/join", {"first": True}).status_code == 200
    assert post(guest, token2, "/api/join", {"pin": PIN}).status_code == 200
    assert post(guest, token2, "/api/games", HEADER).status_code == 201
    odd = post(host, token, "/api/join/start-over", {"everyone": True})
    assert odd.status_code == 400 and '"everyone"' in odd.get_json()["message"]
    assert post(guest, token2, "/api/event", EVENTS[0]).status_code == 200  # nobody was sent away
    assert post(host, token, "/api/join/start-over", {}).status_code == 200
    assert post(guest, token2, "/api/event", EVENTS[1]).status_code == 401
    assert post(host, token, "/api/event", EVENTS[1]).status_code == 200
    assert post(host, token, "/api/join", {"leave": True}).get_json() == {"joined": False}
    assert post(host, token, "/api/event", EVENTS[2]).status_code == 401


def test_phones_stay_joined_across_a_restart(tmp_path: Path) -> None:
    site = make_site(tmp_path / "state")
    site.app.extensions["companion"].pairing = Pairing(site.state_dir)
    client, token = phone(site)
    assert post(client, token, "/api/join", {"first": True}).status_code == 200
    site.table.store.close()
    again = make_site(tmp_path / "state")
    again.app.extensions["companion"].pairing = Pairing(again.state_dir)
    cookie = client.get_cookie("session")
    assert cookie is not None
    returning = again.app.test_client()
    returning.set_cookie("session", cookie.value)
    token = returning.get("/api/csrf").get_json()["token"]
    assert post(returning, token, "/api/games", HEADER).status_code == 201
    again.table.store.close()


def test_companion_join_prints_the_pin_and_an_invite(tmp_path: Path, capsys: Any) -> None:
    from companion.cli import main

    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n[web]\npin = "{PIN}"\n', encoding="utf-8")
    assert main(["join", "--config", str(config)]) == 1  # no table there yet
    assert "start the companion first" in capsys.readouterr().err
    (tmp_path / "state").mkdir()
    assert main(["join", "--config", str(config)]) == 1  # the companion never ran here
    assert "start the companion first" in capsys.readouterr().err
    Pairing(tmp_path / "state")  # what the service does when it starts
    assert main(["join", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    token = Pairing(tmp_path / "state").invite().token
    assert f"Table PIN: {PIN}" in out and f"/join?invite={token}" in out


def test_companion_join_invites_to_the_port_the_companion_serves_on(tmp_path: Path, capsys: Any) -> None:
    """``serve --port`` is not in the config: the running companion keeps where it listens."""
    from companion.cli import main
    from companion.web.security import table_pin

    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n', encoding="utf-8")
    (tmp_path / "state").mkdir()
    table_pin(tmp_path / "state")  # the PIN the service made
    Pairing(tmp_path / "state").serving_at("127.0.0.1", 58123)  # as serve() does once it listens
    assert main(["join", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:58123/join?invite=" in out
    assert "Phones cannot open it: the scoreboard listens on 127.0.0.1, this machine only" in out
    restarted = Pairing(tmp_path / "state")
    assert restarted.served == ("127.0.0.1", 58123)
    restarted.serving_at("127.0.0.1", 8000)  # started again without --port
    assert main(["join", "--config", str(config)]) == 0
    assert "http://127.0.0.1:8000/join?invite=" in capsys.readouterr().out
    (tmp_path / "state" / "pairing.json").write_text(
        json.dumps({**json.loads((tmp_path / "state" / "pairing.json").read_text()), "port": True})
    )
    assert Pairing(tmp_path / "state", writable=False).served is None  # a damaged port: the config's


def test_companion_join_writes_nothing_even_when_what_it_reads_is_damaged(
    tmp_path: Path, capsys: Any
) -> None:
    """A damaged PIN or an expired invite is said, not drawn again: one drawn by ``companion join``
    would be saved nowhere, or would replace the one the running companion holds."""
    from companion.cli import main
    from companion.web.security import PIN_FILE, table_pin

    state = tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{state}"\n', encoding="utf-8")
    state.mkdir()
    table_pin(state)  # the PIN the service made
    Pairing(state, clock=lambda: 0.0)  # an invite long expired
    (state / PIN_FILE).write_text("abc", encoding="ascii")
    before = {path.name: path.read_bytes() for path in state.iterdir()}
    assert main(["join", "--config", str(config)]) == 1
    assert "is damaged" in capsys.readouterr().err
    assert {path.name: path.read_bytes() for path in state.iterdir()} == before
    table_pin(state)  # the service, started again, draws the PIN
    before = {path.name: path.read_bytes() for path in state.iterdir()}
    assert main(["join", "--config", str(config)]) == 1
    printed = capsys.readouterr()
    assert "Table PIN: " in printed.out and "has expired or is damaged" in printed.err
    assert {path.name: path.read_bytes() for path in state.iterdir()} == before


def test_starting_over_draws_a_pin_the_companion_made_again(tmp_path: Path) -> None:
    from companion.web.security import new_table_pin, table_pin

    site = make_site(tmp_path / "state")
    context = site.app.extensions["companion"]
    old = table_pin(site.state_dir)
    context.pins.pin = old
    context.pin_drawn = lambda: new_table_pin(site.state_dir)
    host, token = phone(site)
    assert post(host, token, "/api/join", {"first": True}).status_code == 200
    assert post(host, token, "/api/join/start-over", {}).status_code == 200
    new = context.pins.pin
    assert new != old and table_pin(site.state_dir) == new  # kept for the next restart
    guest, token2 = phone(site)
    assert post(guest, token2, "/api/join", {"pin": old}).status_code == 403
    assert post(guest, token2, "/api/join", {"pin": new}).status_code == 200
    site.table.store.close()
