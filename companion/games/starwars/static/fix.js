// Star Wars on the fix page: a tile entered by tapping its sides, a camera question answered in
// one tap, and a recorded tile turned a quarter.
"use strict";

(() => {
  const { send, say } = Companion;

  async function enter(record) {
    try {
      await send("/api/event", record);
      say("Saved. The timeline shows it.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  // Enter a tile the camera asked about (tiles.js does the tapping).
  const entry = document.querySelector("form.tile-entry");
  if (entry) {
    const described = TileEntry.attach(entry);
    entry.addEventListener("submit", (event) => {
      event.preventDefault();
      const at = entry.at.value.trim().split(/[\s,]+/).map(Number);
      if (at.length !== 2 || at.some((n) => !Number.isInteger(n))) {
        return say("Where is the tile? Two whole numbers, x and y, as the camera's message gives them, e.g. 1, -2.");
      }
      enter({ event: "tile", player: entry.player.value || null, at, tile: described.tile(), meta: { source: "phone" } });
    });
  }

  // A camera question answered in one tap: the tile it offered, at its cell, for the player
  // whose tile comes next; or its cell put into the form above, to describe the tile by hand.
  for (const button of document.querySelectorAll("#camera-asks button.choice")) {
    button.addEventListener("click", () => {
      enter({
        event: "tile",
        player: button.dataset.player || null, // none for the start tile
        at: JSON.parse(button.dataset.at),
        tile: JSON.parse(button.dataset.tile),
        meta: { source: "phone" },
      });
    });
  }
  for (const button of document.querySelectorAll("#camera-asks button.by-hand")) {
    button.addEventListener("click", () => {
      if (!entry) return say("Start a game first: the tile is entered into it.");
      entry.at.value = button.dataset.at;
      if (button.dataset.player) entry.player.value = button.dataset.player;
      document.getElementById("enter-tile").scrollIntoView();
    });
  }

  // A quarter turn clockwise: a feature on side N moves to E, E to S, S to W, W to N.
  function turned(record) {
    const next = { N: "E", E: "S", S: "W", W: "N" };
    const copy = JSON.parse(JSON.stringify(record));
    if (typeof copy.tile === "string") {
      copy.rotation = ((copy.rotation || 0) + 1) % 4; // a catalog tile turns by its rotation
      return copy;
    }
    for (const feature of copy.tile.features || []) {
      if (feature.edges) feature.edges = [...feature.edges].map((side) => next[side]).join("");
    }
    return copy;
  }
  for (const rotate of document.querySelectorAll("form.fix .rotate")) {
    rotate.addEventListener("click", () => {
      const form = rotate.closest("form");
      form.event.value = JSON.stringify(turned(JSON.parse(form.event.value)));
      form.querySelector("details.advanced").open = true;
    });
  }
})();
