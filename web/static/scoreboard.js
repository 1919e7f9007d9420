// Keeps the scoreboard current by asking /api/state every two seconds.
// (Server-Sent Events replace this polling with the full web issue.)
"use strict";

function text(tag, content, className) {
  const node = document.createElement(tag);
  node.textContent = content;
  if (className) node.className = className;
  return node;
}

function render(state) {
  document.getElementById("title").textContent = state.title;
  const turn = state.finished ? "Game over" : `Turn ${state.turn} · ${state.turn_of}'s turn`;
  document.getElementById("summary").textContent = `${turn} · ${state.tiles_placed} tiles`;

  const players = document.getElementById("players");
  players.replaceChildren(...[...state.players].sort((a, b) => b.score - a.score).map((p) => {
    const item = document.createElement("li");
    item.className = "player";
    item.style.setProperty("--seat", `var(--${p.color})`);
    item.append(text("span", p.name, "name"),
                text("span", `${p.meeples.small} small · ${p.meeples.large} large left`, "meeples"),
                text("span", String(p.score), "score"));
    return item;
  }));

  document.getElementById("prompts").replaceChildren(...state.prompts.map((p) => text("p", p, "prompt")));

  const log = document.getElementById("log");
  const latest = [...state.log].reverse().slice(0, 12);
  log.replaceChildren(...(latest.length ? latest.map((e) => {
    const item = document.createElement("li");
    item.append(text("b", `${e.player} ${e.points >= 0 ? "+" : ""}${e.points}`), ` ${e.reason}`);
    return item;
  }) : [text("li", "No points scored yet.", "muted")]));
  document.getElementById("source").textContent = state.source;
}

async function refresh() {
  try {
    const response = await fetch("/api/state", { cache: "no-store" });
    if (response.ok) render(await response.json());
  } catch (error) {
    // The companion may be restarting; the next refresh tries again.
  }
}

setInterval(refresh, 2000);
