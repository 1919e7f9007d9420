// Enrolment: the camera's picture of each tile on the mat in turn, described by tapping its sides.
"use strict";

(() => {
  const { send, say, el } = Companion;
  const form = document.getElementById("enrol-tile");
  if (!form) return;
  const described = TileEntry.attach(form);
  const picture = form.querySelector(".tile-picture");
  let tiles = [];
  let current = null; // the cell shown, "x,y"
  const key = (tile) => tile.at.join(",");

  function show(state) {
    tiles = state.tiles;
    const left = tiles.filter((t) => !t.enrolled);
    document.getElementById("progress").textContent = state.game_under_way
      ? "A game is under way: the camera is reading it. Tiles are taught between games: end the game, then lay them on the mat."
      : state.camera
        ? `${state.message} ${state.enrolled} picture(s) in the gallery.`
        : "Waiting for the camera's first still picture of the mat…";
    const list = document.getElementById("laid");
    list.replaceChildren(...tiles.map((t) => {
      const item = el("li", undefined, t.enrolled ? "done" : "");
      const button = el("button", `${t.at[0]}, ${t.at[1]}${t.enrolled ? " ✓" : ""}`);
      button.type = "button";
      button.addEventListener("click", () => open(key(t)));
      item.append(button);
      return item;
    }));
    list.hidden = state.game_under_way; // what lay on the mat before the game is not there now
    if (!tiles.some((t) => key(t) === current)) current = null;
    if (current === null && left.length) open(key(left[0]));
    form.hidden = current === null || state.game_under_way;
    if (!left.length && tiles.length && !state.game_under_way) say(`All ${tiles.length} tiles on the mat are saved. Lay the next ones, or start the game.`, true);
  }

  function open(cell) {
    current = cell;
    const [x, y] = cell.split(",");
    picture.src = `/api/enrol/tiles/${x}/${y}.jpg?${Date.now()}`;
    document.getElementById("which").textContent = `The tile at ${x}, ${y}`;
    described.reset();
    form.hidden = false;
  }

  function next() {
    const order = tiles.map(key);
    const after = [...order.slice(order.indexOf(current) + 1), ...order.slice(0, order.indexOf(current))];
    const waiting = after.find((cell) => !tiles.find((t) => key(t) === cell).enrolled);
    if (waiting) open(waiting);
    else { current = null; form.hidden = true; }
  }

  async function refresh() {
    try {
      const response = await fetch("/api/enrol", { cache: "no-store" });
      const answer = await response.json();
      if (!response.ok) return say(answer.message);
      show(answer);
    } catch (error) {
      say("The companion does not answer: is it still running?");
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (current === null) return;
    try {
      const at = current.split(",").map(Number);
      const answer = await send("/api/enrol", { at, tile: described.tile() });
      say(`Saved the tile at ${at.join(", ")}: ${TileEntry.described(described.tile())}`, true);
      show(answer);
      next();
    } catch (error) {
      say(error.message);
    }
  });
  document.getElementById("skip").addEventListener("click", next);

  refresh();
  setInterval(refresh, 3000); // tiles laid or taken away show up by themselves
})();
