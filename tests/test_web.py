"""The pages and the read side of the API, through Flask's test client."""

from __future__ import annotations

import json
import threading

import pytest
from conftest import DEMO_RECORD, Site, make_site, record_lines

from companion.record import parse_record, read_record, replay
from companion.web import net
from companion.web.demo import feed
from companion.web.server import phones_cannot_join

PAGES = ["/", "/timeline", "/setup", "/fix", "/games", "/join"]


def test_every_page_answers_before_any_game(site: Site) -> None:
    for path in PAGES:
        response = site.client.get(path)
        assert response.status_code == 200, path
        assert "text/html" in response.content_type
    assert "No game is being scored yet" in site.client.get("/").get_data(as_text=True)
    assert site.client.get("/api/state").get_json()["game"] is None
    assert site.client.get("/api/record").status_code == 404


def test_scoreboard_shows_players_scores_turn_and_tiles_left(site: Site) -> None:
    site.play("asteroid-battle-tie.jsonl", events=14)
    html = site.client.get("/").get_data(as_text=True)
    for words in (
        "Ana",
        "Ben",
        "Cid",
        "Turn 10 · Ana's turn",
        "65 tiles left",
        "seat-black",
        "4 small · 0 large left",
    ):
        assert words in html
    assert "A battle for the asteroid field: Ana rolls 2 dice" in html  # the battle prompt
    state = site.client.get("/api/state").get_json()
    assert state["turn_of"] == "Ana" and state["extras"]["tiles_left"] == 65
    assert [f["dice"] for f in state["extras"]["battle"]["fighters"]] == [2, 1, 2]


def test_laps_of_the_score_track(site: Site) -> None:
    site.play("route-three.jsonl", events=1)
    site.post("/api/event", {"event": "adjust", "player": "Ana", "points": 57, "reason": "test laps"})
    html = site.client.get("/").get_data(as_text=True)
    assert "track 7 · lap 2" in html


def test_timeline_lists_every_event_newest_first_with_breakdowns(site: Site) -> None:
    site.play("asteroid-battle-tie.jsonl")
    items = site.client.get("/api/timeline").get_json()
    assert [i["seq"] for i in items] == sorted((i["seq"] for i in items), reverse=True)
    assert items[0]["text"] == "Ana rolled 2, 5"
    reasons = [c["reason"] for i in items for c in i["changes"]]
    assert "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12" in reasons
    html = site.client.get("/timeline").get_data(as_text=True)
    assert "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12" in html and 'href="/scores/4"' in html


def test_feature_view_of_a_scored_domain(site: Site) -> None:
    site.play("asteroid-battle-tie.jsonl")
    view = site.client.get("/api/scores/4").get_json()
    assert view["score"]["reason"] == "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12"
    detail = view["score"]["detail"]
    assert detail["tiles"] == 5 and detail["symbols"] == {"rebels": 1}
    assert detail["meeples"] == [{"player": "Cid", "size": "large", "at": [1, 0], "feature": "S"}]
    assert "2 points per tile" in detail["rule"]
    assert (
        view["picture"].startswith("<svg") and view["picture"].count("<title>") == 11
    )  # the start tile and 10 more
    html = site.client.get("/scores/4").get_data(as_text=True)
    for words in ("Cid +12", "Tiles", "1 rebels", "Cid (large)", "<svg", "2 points per tile"):
        assert words in html


def test_feature_view_of_a_battle_shows_every_round(site: Site) -> None:
    site.play("asteroid-battle-tie.jsonl")
    view = site.client.get("/api/scores/3").get_json()
    assert view["score"]["kind"] == "battle"
    rounds = view["extras"]["battle"]["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    assert rounds[0]["tied"] == ["Ana", "Cid"] and rounds[0]["lost"] == ["Ben"]
    assert rounds[1]["won"] == "Cid"
    html = site.client.get("/scores/3").get_data(as_text=True)
    assert "The battle, round by round" in html and "Cid wins" in html and "tie: Ana, Cid roll again" in html
    # how many dice each rolled, set apart from the values rolled (Ana: 4, 2), one die or more
    assert "<dt>Dice rolled</dt><dd>Ana 2 dice, Cid 2 dice</dd>" in html and "Ana: 2, 5" in html
    html = site.client.get("/scores/1").get_data(as_text=True)  # Ben's loss in round 1
    assert "<dd>Ana 2 dice, Ben 1 die, Cid 2 dice</dd>" in html and "Ben: 3<br>" in html


def test_feature_view_shows_the_evidence_image(site: Site) -> None:
    site.play("route-three.jsonl", events=1)
    game_id = site.table.live.game_id  # type: ignore[union-attr]
    picture = b"\x89PNG\r\n\x1a\nnot really a png"
    path = site.table.store.save_evidence(game_id, picture, ".png")
    _, events = record_lines("route-three.jsonl")
    for event in events[1:3]:
        site.post("/api/event", event)
    closing = {**events[3], "meta": {"evidence": path, "confidence": 0.98}}  # Ben's tile closes the route
    site.post("/api/event", closing)
    site.post("/api/event", events[4])  # his meeple ends his turn: the route scores
    html = site.client.get("/scores/0").get_data(as_text=True)
    assert f'<img src="/{path}"' in html
    assert site.client.get(f"/{path}").data == picture
    for sneaky in ("/evidence/../games.sqlite3", "/evidence/1/../../secret_key", "/evidence/%2e%2e/pin"):
        assert site.client.get(sneaky).status_code == 404


def test_unknown_score_is_a_404(site: Site) -> None:
    site.play("route-three.jsonl", events=2)
    assert site.client.get("/api/scores/99").status_code == 404
    assert site.client.get("/scores/99").status_code == 404
    assert (
        site.client.get("/api/scores/99").get_json()["message"] == "there is no score number 99 in this game"
    )


def test_record_download_replays_to_the_same_scores(site: Site) -> None:
    site.play("three-battles-one-turn.jsonl")
    response = site.client.get("/api/record")
    assert response.headers["Content-Disposition"] == 'attachment; filename="game.jsonl"'
    game = replay(parse_record(response.data))
    assert (
        game.scores() == site.client.get("/api/state").get_json()["scores"] == {"Ana": 7, "Ben": 4, "Cid": 12}
    )


def test_past_games_are_listed_and_downloadable(site: Site) -> None:
    site.play("route-three.jsonl")
    site.play("planet-eleven.jsonl")
    games = site.client.get("/api/games").get_json()
    assert [g["players"][0]["name"] for g in games] == ["Ana", "Ana"]
    assert games[0]["ended"] is not None and games[1]["ended"] is not None
    older = site.client.get(games[1]["record"])
    assert replay(parse_record(older.data)).scores() == {"Ana": 3, "Ben": 1}
    assert "Download the record" in site.client.get("/games").get_data(as_text=True)
    assert site.client.get("/api/games/999/record").status_code == 404


def test_join_page_has_a_qr_code_of_the_address(site: Site) -> None:
    html = site.client.get("/join").get_data(as_text=True)
    assert "<svg" in html and "http://192.0.2.7:8000/" in html
    assert "Scan with the phone's camera" in html and "Phones cannot reach" not in html
    svg = html[html.index("<svg") : html.index(">", html.index("<svg"))]
    assert "viewBox=" in svg and "width=" not in svg  # scaled to the screen, never cut


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_join_page_on_a_loopback_server_says_phones_cannot_reach_it(site: Site, host: str) -> None:
    context = site.app.extensions["companion"]
    context.host, context.join_urls = host, net.page_urls(host, 8000)  # as ``--host`` sets them
    html = site.client.get("/join").get_data(as_text=True)
    assert "Phones cannot reach this scoreboard:</b> it is only served to this machine" in html
    assert ".venv/bin/companion demo --host 0.0.0.0" in html and '[web] host = "0.0.0.0"' in html
    assert "<svg" not in html and "Scan with the phone's camera" not in html  # no QR to scan in vain


def test_join_page_listening_everywhere_without_a_network(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(net, "lan_addresses", lambda: [])
    context = site.app.extensions["companion"]
    context.host, context.join_urls = "0.0.0.0", net.page_urls("0.0.0.0", 8000)
    assert context.join_urls == ["http://127.0.0.1:8000/"]
    html = site.client.get("/join").get_data(as_text=True)
    assert "this machine had no network address" in html and "<svg" not in html
    assert "--host 0.0.0.0" not in html  # it listens everywhere already: a restart with it would not help


def test_loopback_addresses_are_known() -> None:
    for url in (
        "http://127.0.0.1:8000/",
        "http://127.1.2.3:80/",
        "http://[::1]:8000/",
        "http://LocalHost:8000/",
    ):
        assert net.is_loopback(url), url
    for url in ("http://192.0.2.7:8000/", "http://[fe80::1]:8000/", "http://table-companion.local:8000/"):
        assert not net.is_loopback(url), url
    assert "restart with --host 0.0.0.0" in phones_cannot_join("127.0.0.1")
    assert "no network address" in phones_cannot_join("0.0.0.0")


def test_pages_load_nothing_from_outside(site: Site) -> None:
    site.play("asteroid-battle-tie.jsonl")
    for path in [*PAGES, "/scores/4"]:
        response = site.client.get(path)
        html = response.get_data(as_text=True)
        assert "https://" not in html and "//cdn" not in html
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    for asset in ("common.js", "scoreboard.js", "timeline.js", "setup.js", "fix.js", "app.css"):
        body = site.client.get(f"/static/{asset}").get_data(as_text=True)
        assert "http://" not in body and "https://" not in body


def test_a_restart_resumes_the_game_exactly(site: Site) -> None:
    site.play("three-battles-one-turn.jsonl", events=15)
    before = site.client.get("/api/state").get_json()
    again = make_site(site.state_dir)
    assert again.client.get("/api/state").get_json() == before
    again.table.store.close()


def test_demo_feeds_the_bundled_record(tmp_path: object) -> None:
    from pathlib import Path

    from companion.live.table import Table
    from companion.store import GameStore

    record = read_record(DEMO_RECORD)
    table = Table(GameStore(Path(str(tmp_path))))
    table.start(record.setup.to_json())
    feed(table, record, pace=0, stop=threading.Event())
    state = table.state()
    assert state["finished"] is True and state["events"] == len(record.events)
    assert state["scores"] == replay(record).scores()
    json.dumps(state)


def test_the_turn_shown_is_the_one_under_way_or_about_to_start(site: Site) -> None:
    site.play("route-battle.jsonl", events=10)  # the 7th tile after the start tile is down: her turn 7
    state = site.client.get("/api/state").get_json()
    assert (state["turn"], state["turn_of"]) == (7, "Ana")
    for event in (
        {"event": "roll", "player": "Ana", "dice": [6]},
        {"event": "roll", "player": "Ben", "dice": [1]},
    ):
        site.post("/api/event", event)
    state = site.client.get("/api/state").get_json()  # her turn is over: Ben's turn 8 comes
    assert (state["extras"]["turns_begun"], state["turn"], state["turn_of"]) == (7, 8, "Ben")
    assert "current_player" not in state["extras"]  # not to be taken for turn_of
    assert "Turn 8 · Ben's turn" in site.client.get("/").get_data(as_text=True)


def test_the_qr_code_and_the_mdns_name() -> None:
    import socket

    import segno

    from companion.web.join import qr_svg, qr_terminal
    from companion.web.mdns import SERVICE, Advertisement

    url = "http://192.168.1.20:8000/"
    svg = qr_svg(url)
    assert svg.startswith("<svg") and "<path" in svg
    size = segno.make(url, error="m").symbol_size(border=2)[0]
    rows = qr_terminal(url).splitlines()
    assert len(rows) == (size + 1) // 2 and all(len(row) == size for row in rows)  # two modules a line
    info = Advertisement(8000, ["192.168.1.20"]).service_info()
    assert info.type == SERVICE and info.port == 8000  # type: ignore[attr-defined]
    assert info.server == "table-companion.local."  # type: ignore[attr-defined]
    assert info.addresses == [socket.inet_aton("192.168.1.20")]  # type: ignore[attr-defined]


def test_the_dice_trays_show_on_the_scoreboard_and_in_the_state(site: Site) -> None:
    page = site.client.get("/").get_data(as_text=True)
    assert 'id="trays"' not in page  # no trays, nothing shown
    inbox = site.table.broadcast.subscribe()
    trays = [
        {"tray": 1, "phase": "waiting", "fighter": "Ana", "player": "Ana", "colour": "red", "dice": 2,
         "read": None, "message": None},
        {"tray": 2, "phase": "problem", "fighter": "Ben", "player": "Ben", "colour": "black", "dice": 1,
         "read": None, "message": "a hand is over tray 2: take it away, then press its button"},
        {"tray": 3, "phase": "idle", "fighter": None, "player": None, "colour": None, "dice": None,
         "read": None, "message": None},
    ]  # fmt: skip
    site.table.set_trays(trays)
    site.table.set_trays([dict(tray) for tray in trays])  # the same again: nobody is told twice
    assert inbox.qsize() == 1
    assert site.client.get("/api/state").get_json()["trays"] == trays
    page = site.client.get("/").get_data(as_text=True)
    assert '<li class="tray tray-waiting seat-red">Tray 1: Ana rolls 2 dice</li>' in page
    assert "Tray 2: a hand is over tray 2: take it away, then press its button" in page
    assert '<li class="tray tray-idle">Tray 3: free</li>' in page


def test_the_winner_screen_and_the_past_games_name_the_winners(site: Site) -> None:
    site.play("final-scoring.jsonl")
    state = site.client.get("/api/state").get_json()
    assert state["finished"] and state["winners"]
    page = site.client.get("/").get_data(as_text=True)
    winner = state["winners"][0]
    assert 'id="winner"' in page and f"{winner} wins" in page and 'id="turn"' not in page
    for name, parts in state["breakdown"].items():
        total = sum(points for _, points in parts)
        assert total == state["scores"][name]  # the breakdown adds up
        for what, points in parts:
            assert f"{what} {points}" in page
    assert "final scoring" in {what for parts in state["breakdown"].values() for what, _ in parts}
    games = site.client.get("/games").get_data(as_text=True)
    assert f"{winner} {state['scores'][winner]} <b>won</b>" in games


def test_whose_turn_is_loud_and_the_last_score_in_words(site: Site) -> None:
    site.play("route-three.jsonl", events=5)
    page = site.client.get("/").get_data(as_text=True)
    state = site.client.get("/api/state").get_json()
    assert f'<p class="whose">{state["turn_of"]}\'s turn</p>' in page
    assert 'id="just-scored"' in page and state["log"][-1]["reason"] in page
    assert "[" not in site.client.get("/timeline").get_data(as_text=True).split('id="timeline"')[1]


def test_in_teams_each_players_breakdown_is_the_teams_and_adds_up_to_the_score(site: Site) -> None:
    site.play("teams-planet.jsonl")
    state = site.client.get("/api/state").get_json()
    teams = {p["name"]: p["team"] for p in state["players"]}
    assert len(set(teams.values())) < len(teams)  # players share a team
    for name, parts in state["breakdown"].items():
        assert sum(points for _, points in parts) == state["scores"][name]
        mates = [other for other in teams if other != name and teams[other] == teams[name]]
        assert all(state["breakdown"][mate] == parts for mate in mates)


def test_players_without_a_score_sort_after_those_with_one_in_seat_order() -> None:
    from companion.web import by_score, ranked

    players = [{"name": "A", "score": None}, {"name": "B", "score": 3}, {"name": "C", "score": None}]
    players += [{"name": "D", "score": 7}, {"name": "E", "score": 3}]
    assert [p["name"] for p in by_score(players)] == ["D", "B", "E", "A", "C"]
    assert [name for name, _ in ranked({"A": None, "B": 2, "C": 9})] == ["C", "B", "A"]


def test_a_games_own_styles_come_with_its_pages_and_the_part_names_its_game(site: Site) -> None:
    site.play("route-three.jsonl", events=2)
    page = site.client.get("/fix").get_data(as_text=True)
    assert "/games/starwars/static/starwars.css" in page and 'data-game="starwars"' in page
    assert ".tile-sides" not in site.client.get("/static/app.css").get_data(as_text=True)
    assert site.client.get("/games/starwars/static/starwars.css").status_code == 200
    assert 'data-game="starwars"' in site.client.get("/parts/scoreboard").get_data(as_text=True)
    castle = site.client.get("/setup?game=castle").get_data(as_text=True)
    assert "/games/castle/static/castle.css" in castle and "starwars.css" not in castle
