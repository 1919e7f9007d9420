// Enrolment: the camera's picture of each tile on the mat in turn, described by tapping its sides.
// The form starts from the companion's proposal: a copy of a type already saved (its picture
// shown beside), or the most alike tile saved; a person checks it and saves.
"use strict";

(() => {
  const { send, say, el } = Companion;
  const form = document.getElementById("enrol-tile");
  if (!form) return;
  const described = TileEntry.attach(form);
  const picture = form.querySelector(".tile-picture");
  const proposal = document.getElementById("proposal");
  const like = document.getElementById("like");
  const proposalSays = document.getElementById("proposal-says");
  let tiles = [];
  let current = null; // the cell shown, "x,y"
  let allSavedSaid = null; // how many tiles lay on the mat when "all saved" was said
  const key = (tile) => tile.at.join(",");

  function show(state) {
    tiles = state.tiles;
    const left = tiles.filter((t) => !t.saved);
    document.getElementById("progress").textContent = state.game_under_way
      ? "A game is under way: the camera is reading it. Tiles are taught between games: end the game, then lay them on the mat."
      : state.camera
        ? `${state.message} ${state.enrolled} picture(s) in the gallery.`
        : "Waiting for the camera's first still picture of the mat…";
    const list = document.getElementById("laid");
    list.replaceChildren(...tiles.map((t) => {
      const item = el("li", undefined, t.saved ? "done" : "");
      const button = el("button", `${t.at[0]}, ${t.at[1]}${t.saved ? (t.copy ? " ✓ copy" : " ✓") : ""}`);
      button.type = "button";
      button.addEventListener("click", () => open(key(t)));
      item.append(button);
      return item;
    }));
    list.hidden = state.game_under_way; // what lay on the mat before the game is not there now
    if (!tiles.some((t) => key(t) === current)) current = null;
    if (current === null && left.length) open(key(left[0]));
    form.hidden = current === null || state.game_under_way;
    const allSaved = !left.length && tiles.length && !state.game_under_way ? tiles.length : null;
    // said once each time the mat is all saved, and kept until tapped or a later message
    if (allSaved !== null && allSaved !== allSavedSaid) say(`All ${tiles.length} tiles on the mat are saved. Lay the next ones, or start the game.`, true, true);
    allSavedSaid = allSaved;
    showBox(state);
  }

  function showBox(state) {
    const box = document.getElementById("box");
    box.hidden = !state.counted.tiles || !state.can_keep_counts || state.game_under_way;
    document.getElementById("box-counted").textContent = `Saved so far: ${state.counted.tiles} tile(s) of ${state.counted.types} type(s).`;
  }

  // What the form starts from for the tile shown: the companion's proposal, if it has one.
  async function propose(cell) {
    const [x, y] = cell.split(",");
    proposal.hidden = true;
    like.hidden = true;
    try {
      const response = await fetch(`/api/enrol/tiles/${x}/${y}`, { cache: "no-store" });
      const answer = await response.json();
      if (!response.ok || current !== cell || !answer.proposal) return;
      described.fill(answer.proposal.tile);
      if (answer.proposal.copy) {
        like.src = `/api/enrol/tiles/${x}/${y}/like.jpg?${Date.now()}`;
        like.hidden = false;
        proposalSays.textContent = "This looks like a copy of a tile you saved (beside it, turned the same way). If it is the same tile, just Save.";
      } else {
        proposalSays.textContent = "Filled in from the most alike tile saved: check each side, the planet and the symbols.";
      }
      proposal.hidden = false;
    } catch (error) {
      // no proposal: the form stays blank, as for the first tile
    }
  }
  like.addEventListener("error", () => { like.hidden = true; }); // saved before this enrolment: no picture here

  function open(cell) {
    current = cell;
    const [x, y] = cell.split(",");
    picture.src = `/api/enrol/tiles/${x}/${y}.jpg?${Date.now()}`;
    document.getElementById("which").textContent = `The tile at ${x}, ${y}`;
    described.reset();
    form.hidden = false;
    propose(cell);
  }

  function next() {
    const order = tiles.map(key);
    const after = [...order.slice(order.indexOf(current) + 1), ...order.slice(0, order.indexOf(current))];
    const waiting = after.find((cell) => !tiles.find((t) => key(t) === cell).saved);
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
      say(`Saved the tile at ${at.join(", ")}${answer.copy ? " as a copy" : ""}: ${TileEntry.described(described.tile())}`, true);
      show(answer);
      next();
    } catch (error) {
      say(error.message);
    }
  });
  document.getElementById("skip").addEventListener("click", next);
  document.getElementById("whole-box").addEventListener("click", async () => {
    try {
      const answer = await send("/api/enrol", { whole_box: true });
      const kept = answer.counts_kept;
      say(`Kept: your box holds ${kept.tiles} tile(s) of ${kept.types} type(s). The camera now reads your games by it.`, true, true);
      show(answer);
    } catch (error) {
      say(error.message);
    }
  });

  refresh();
  setInterval(refresh, 3000); // tiles laid or taken away show up by themselves
})();
