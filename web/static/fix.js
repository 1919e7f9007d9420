// Corrections: undo, a score by hand, or fix one event (a die, a meeple, a tile), each with a reason.
"use strict";

(() => {
  const { send, say, seq } = Companion;

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

  function edited(form) {
    const record = JSON.parse(form.event.value);
    if (form.dataset.kind === "roll") record.dice = form.dice.value.trim().split(/[\s,]+/).map(Number);
    if (form.dataset.kind === "meeple") {
      record.size = form.size.value;
      record.feature = form.feature.value;
      record.at = form.at.value.trim().split(/[\s,]+/).map(Number);
    }
    return record;
  }

  async function submit(form, request) {
    try {
      await send(request.path, request.body);
      say("Saved. The timeline shows the correction.", true);
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
      const record = { event: "tile", player: entry.player.value || null, at, tile: described.tile(), meta: { source: "phone" } };
      submit(entry, { path: "/api/event", body: record });
    });
  }

  // A camera question answered in one tap: the tile it offered, at its cell, for the player
  // whose tile comes next; or its cell put into the form above, to describe the tile by hand.
  for (const button of document.querySelectorAll("#camera-asks button.choice")) {
    button.addEventListener("click", () => {
      const record = {
        event: "tile",
        player: button.dataset.player || null, // none for the start tile
        at: JSON.parse(button.dataset.at),
        tile: JSON.parse(button.dataset.tile),
        meta: { source: "phone" },
      };
      submit(button, { path: "/api/event", body: record });
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

  // Arriving from a score's "Fix it" link: open that event.
  const target = window.location.hash && document.querySelector(`${window.location.hash} details`);
  if (target) target.open = true;

  for (const form of document.querySelectorAll("form.fix")) {
    const rotate = form.querySelector(".rotate");
    if (rotate) {
      rotate.addEventListener("click", () => {
        form.event.value = JSON.stringify(turned(JSON.parse(form.event.value)));
        form.querySelector("details.advanced").open = true;
      });
    }
    const remove = form.querySelector(".remove-event");
    if (remove) {
      remove.addEventListener("click", () => {
        if (!form.reason.value.trim()) return say("Say why first.");
        const body = { op: "remove", index: Number(form.dataset.index), reason: form.reason.value, base: seq() };
        submit(form, { path: "/api/corrections", body });
      });
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const reason = form.reason.value;
      if (form.dataset.op === "undo") return submit(form, { path: "/api/undo", body: { reason, base: seq() } });
      if (form.dataset.op === "adjust") {
        const adjust = { event: "adjust", player: form.player.value, points: Number(form.points.value), reason };
        return submit(form, { path: "/api/event", body: adjust });
      }
      let record;
      try {
        record = edited(form);
      } catch (error) {
        return say(`The event is not valid JSON: ${error.message}`);
      }
      const index = form.dataset.op === "insert" ? Number(form.index.value) : Number(form.dataset.index);
      const body = { op: form.dataset.op, index, event: record, reason, base: seq() };
      submit(form, { path: "/api/corrections", body });
    });
  }
})();
