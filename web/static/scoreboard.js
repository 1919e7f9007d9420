// The scoreboard follows the game live: scores, whose turn, what is waiting, the latest scores.
"use strict";

(() => {
  const { el, signed } = Companion;
  let lastScores = {};

  function summary(state) {
    if (!state.game) return "No game yet";
    const turn = state.finished ? "Game over" : `Turn ${state.turn_number} · ${state.turn_of}'s turn`;
    return `${turn} · ${state.tiles_left} tiles left`;
  }

  function player(p) {
    const item = el("li", undefined, `player seat-${p.color}`);
    item.dataset.player = p.name;
    const track = `track ${p.score % 50}` + (p.score >= 50 ? ` · lap ${Math.floor(p.score / 50) + 1}` : "");
    item.append(
      el("span", p.name, "name"),
      el("span", `${p.meeples.small} small · ${p.meeples.large} large left`, "meeples"),
      el("span", track, "track"),
      el("span", String(p.score), "score"),
    );
    if (lastScores[p.name] !== undefined && lastScores[p.name] !== p.score) item.classList.add("scored");
    return item;
  }

  // One dice tray; the tray_line macro in _macros.html says the same.
  function trayLine(tray) {
    const said = {
      waiting: () => `${tray.player} rolls ${tray.dice} ${tray.dice === 1 ? "die" : "dice"}`,
      rolling: () => `${tray.player}'s dice are rolling`,
      read: () => `${tray.player} rolled ${(tray.read || []).join(", ")}`,
      problem: () => tray.message,
    }[tray.phase];
    const item = el("li", `Tray ${tray.tray}: ${said ? said() : "free"}`, `tray tray-${tray.phase}`);
    if (tray.colour) item.classList.add(`seat-${tray.colour}`);
    return item;
  }

  function render(state) {
    document.getElementById("title").textContent = state.title || "Table Companion";
    document.getElementById("summary").textContent = summary(state);
    const trays = document.getElementById("trays");
    trays.hidden = !(state.trays || []).length;
    trays.replaceChildren(...(state.trays || []).map(trayLine));
    const noGame = document.getElementById("no-game");
    if (noGame && state.game) noGame.remove();
    document.getElementById("prompts").replaceChildren(...(state.prompts || []).map((p) => el("p", p, "prompt")));
    document.getElementById("answer-asks").hidden = !((state.camera && state.camera.asks) || []).length;
    const players = [...state.players].sort((a, b) => b.score - a.score);
    document.getElementById("players").replaceChildren(...players.map(player));
    lastScores = Object.fromEntries(state.players.map((p) => [p.name, p.score]));
    const latest = [...state.log].reverse().slice(0, 12).map((entry) => {
      const link = el("a");
      link.href = `/scores/${entry.index}`;
      link.append(el("b", `${entry.player} ${signed(entry.points)}`), ` ${entry.reason}`);
      const item = el("li");
      item.append(link);
      return item;
    });
    document.getElementById("log").replaceChildren(...(latest.length ? latest : [el("li", "No points scored yet.", "muted")]));
    document.getElementById("source").textContent = state.source || "";
    const camera = state.camera || {};
    const figure = document.getElementById("camera");
    figure.hidden = !camera.view;
    const view = document.getElementById("camera-view");
    const wanted = camera.view ? `/api/camera.jpg?v=${camera.view}` : "";
    if (wanted && view.getAttribute("src") !== wanted) view.setAttribute("src", wanted);
    document.getElementById("camera-status").textContent = camera.status || "";
    document.body.dataset.seq = String(state.seq);
  }

  Companion.subscribe(render);
})();
