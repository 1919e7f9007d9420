"""The scoreboard page and the state API (the full web side comes with issue 3)."""

from __future__ import annotations

import threading
from pathlib import Path

from companion.games.starwars.events import DiceRolled
from companion.record import read_record
from companion.session import GameSession
from companion.web import create_app
from companion.web.demo import bundled_demo_record, feed


def session_after(record_path: Path, events: int | None = None) -> GameSession:
    record = read_record(record_path)
    session = GameSession.from_record(record, source="test")
    for _, event in record.events[:events]:
        session.apply(event)
    return session


def test_scoreboard_page_shows_the_players(records_dir: Path) -> None:
    app = create_app(session_after(records_dir / "asteroid-battle-tie.jsonl").state)
    page = app.test_client().get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for name in ("Ana", "Ben", "Cid", "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12", "Turn 10"):
        assert name in html
    assert "http://" not in html and "https://" not in html  # nothing from outside: the table is offline


def test_state_api_answers_json(records_dir: Path) -> None:
    client = create_app(
        session_after(records_dir / "asteroid-battle-tie.jsonl", events=14).state
    ).test_client()
    state = client.get("/api/state").get_json()
    assert state["game"] == "starwars"
    assert state["scores"] == {"Ana": 0, "Ben": 0, "Cid": 0}
    assert state["phase"] == "meeple"
    assert state["turn_of"] == "Ana"  # her tile joined the fields; the battle is hers to start
    assert state["next_player"] == "Ben"
    assert state["battle"]["kind"] == "asteroid"
    assert [f["dice"] for f in state["battle"]["fighters"]] == [2, 1, 2]
    assert "waiting for dice" in state["prompts"][0]


def test_state_follows_the_game(records_dir: Path) -> None:
    session = session_after(records_dir / "route-battle.jsonl", events=10)
    client = create_app(session.state).test_client()
    assert client.get("/api/state").get_json()["scores"] == {"Ana": 0, "Ben": 0}
    session.apply(DiceRolled("Ana", (6,)))
    session.apply(DiceRolled("Ben", (1,)))
    assert client.get("/api/state").get_json()["scores"] == {"Ana": 4, "Ben": 1}


def test_unknown_api_path_is_a_json_404(records_dir: Path) -> None:
    client = create_app(session_after(records_dir / "route-battle.jsonl").state).test_client()
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert response.get_json()["error"] == "Not Found"


def test_static_assets_are_served(records_dir: Path) -> None:
    client = create_app(session_after(records_dir / "route-battle.jsonl").state).test_client()
    assert client.get("/static/scoreboard.js").status_code == 200
    assert client.get("/static/scoreboard.css").status_code == 200


def test_demo_feeds_the_bundled_record() -> None:
    record = read_record(bundled_demo_record())
    session = GameSession.from_record(record)
    feed(session, record, pace=0, stop=threading.Event())
    state = session.state()
    assert state["finished"] is True
    assert state["events"] == len(record.events)


def test_demo_feed_stops_when_asked() -> None:
    record = read_record(bundled_demo_record())
    session = GameSession.from_record(record)
    stop = threading.Event()
    stop.set()
    feed(session, record, pace=0, stop=stop)
    assert session.state()["events"] == 0


def test_page_urls() -> None:
    from companion.web.net import page_urls

    assert page_urls("127.0.0.1", 8000) == ["http://127.0.0.1:8000/"]
    everywhere = page_urls("0.0.0.0", 8000)
    assert everywhere[-1] == "http://127.0.0.1:8000/"
    assert all(u.startswith("http://") and u.endswith(":8000/") for u in everywhere)
    assert "http://127.0.0.1:8000/" not in everywhere[:-1]
