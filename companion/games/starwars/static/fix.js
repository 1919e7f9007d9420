// Star Wars on the fix page, in taps: a camera question answered, a battle's dice, a meeple
// tapped where it stands, a tile chosen from the box (turned, tapped into its cell) or described
// by its sides; a recorded tile turned a quarter.
"use strict";

(() => {
  const { send, say } = Companion;
  const cellOf = (text) => text.split(",").map(Number);

  async function enter(record) {
    try {
      await send("/api/event", { ...record, meta: { source: "phone" } });
      say("Saved. The scoreboard and the timeline show it.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  // --- a battle's dice: tap each die's face, then send -------------------------------------
  for (const row of document.querySelectorAll("#enter-dice form.dice-row")) {
    const wanted = Number(row.dataset.dice);
    const dice = [];
    const shown = row.querySelector(".rolled");
    const sendButton = row.querySelector("button[type=submit]");
    const draw = () => {
      shown.textContent = dice.length ? `Rolled: ${dice.join(", ")}` : "";
      sendButton.disabled = dice.length !== wanted;
    };
    for (const face of row.querySelectorAll("button.face")) {
      face.addEventListener("click", () => {
        if (dice.length < wanted) dice.push(Number(face.dataset.face));
        draw();
      });
    }
    row.querySelector("button.again").addEventListener("click", () => { dice.length = 0; draw(); });
    row.addEventListener("submit", (event) => {
      event.preventDefault();
      enter({ event: "roll", player: row.player.value, dice: [...dice] });
    });
  }

  // --- a meeple: the size, then tap its ring on the tile -----------------------------------
  const meeples = document.querySelector("#enter-meeple .meeple-board");
  if (meeples) {
    const words = JSON.parse(meeples.dataset.words);
    for (const spot of meeples.querySelectorAll(".spot")) {
      spot.setAttribute("role", "button");
      spot.setAttribute("tabindex", "0");
      spot.setAttribute("aria-label", `on ${words[`${spot.dataset.at}/${spot.dataset.feature}`]}`);
      spot.addEventListener("click", () => {
        const size = document.querySelector("input[name=meeple-size]:checked");
        if (!size) return say("This player has no meeple left.");
        enter({
          event: "meeple",
          player: meeples.dataset.player,
          at: cellOf(spot.dataset.at),
          feature: spot.dataset.feature,
          size: size.value,
        });
      });
    }
  }

  // --- a tile: tap its cell, choose it from the box, turn it, place it ---------------------
  const card = document.getElementById("enter-tile");
  const chooser = card && card.querySelector(".tile-chooser");
  const describeForm = card && card.querySelector("form.tile-entry");
  let cell = null;
  let ways = []; // the chosen type's ways that fit the cell
  let way = 0;

  function choose(key) {
    cell = key;
    for (const target of card.querySelectorAll(".target")) target.classList.toggle("chosen", target.dataset.cell === key);
    const legal = JSON.parse(card.dataset.legal)[key] || {};
    const fitting = Object.keys(legal);
    chooser.hidden = false;
    chooser.querySelector(".which").textContent = fitting.length
      ? "Which tile is it? The tiles of the box that fit there:"
      : "No tile of the box fits there: describe it by its sides.";
    // each type that fits, shown by its first way that fits
    for (const button of chooser.querySelectorAll("button.way")) {
      const rotations = legal[button.dataset.type] || [];
      button.hidden = Number(button.dataset.rotation) !== rotations[0];
      button.classList.remove("picked");
    }
    chooser.querySelector(".turn-tile").hidden = true;
    chooser.querySelector(".place-tile").hidden = true;
    chooser.querySelector(".chosen").textContent = "";
    describeForm.hidden = true;
    describeForm.at.value = key;
    chooser.scrollIntoView({ block: "nearest" });
  }

  function pick(type) {
    const legal = JSON.parse(card.dataset.legal)[cell][type];
    ways = [...chooser.querySelectorAll(`button.way[data-type="${type}"]`)].filter((b) => legal.includes(Number(b.dataset.rotation)));
    way = 0;
    show();
  }

  function show() {
    for (const button of chooser.querySelectorAll("button.way")) {
      if (ways.includes(button)) button.hidden = button !== ways[way];
      else button.hidden = true;
      button.classList.toggle("picked", button === ways[way]);
    }
    chooser.querySelector(".chosen").textContent = `${ways[way].getAttribute("aria-label")}${ways.length > 1 ? ` (way ${way + 1} of ${ways.length})` : ""}`;
    chooser.querySelector(".turn-tile").hidden = ways.length < 2;
    chooser.querySelector(".place-tile").hidden = false;
  }

  if (card) {
    for (const target of card.querySelectorAll(".tile-board .target")) {
      target.setAttribute("role", "button");
      target.setAttribute("tabindex", "0");
      target.addEventListener("click", () => choose(target.dataset.cell));
    }
    for (const button of chooser.querySelectorAll("button.way")) {
      button.addEventListener("click", () => (ways.length && ways.includes(button) ? null : pick(button.dataset.type)));
    }
    chooser.querySelector(".turn-tile").addEventListener("click", () => { way = (way + 1) % ways.length; show(); });
    chooser.querySelector(".place-tile").addEventListener("click", () => {
      enter({ event: "tile", player: card.dataset.player || null, at: cellOf(cell), tile: JSON.parse(ways[way].dataset.tile) });
    });
    chooser.querySelector(".describe").addEventListener("click", () => {
      describeForm.hidden = false;
      describeForm.scrollIntoView({ block: "nearest" });
    });
    const described = TileEntry.attach(describeForm);
    describeForm.addEventListener("submit", (event) => {
      event.preventDefault();
      enter({ event: "tile", player: describeForm.player.value || null, at: cellOf(describeForm.at.value), tile: described.tile() });
    });
  }

  // A camera question answered in one tap: the tile it offered, at its cell, for the player
  // whose tile comes next; or its cell chosen on the board below, to choose the tile there.
  for (const button of document.querySelectorAll("#camera-asks button.choice")) {
    button.addEventListener("click", () => {
      enter({
        event: "tile",
        player: button.dataset.player || null, // none for the start tile
        at: JSON.parse(button.dataset.at),
        tile: JSON.parse(button.dataset.tile),
      });
    });
  }
  for (const button of document.querySelectorAll("#camera-asks button.by-hand")) {
    button.addEventListener("click", () => {
      if (!card) return say("Start a game first: the tile is entered into it.");
      choose(button.dataset.cell);
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
