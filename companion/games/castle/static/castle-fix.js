// The Castle on the fix page, in taps: a wall tile's number, a wall tile played, the scoring
// order, a follower tapped where it stands, a tile (its space tapped, its shape picked from the
// box or its sides drawn, turned, placed); a recorded tile turned a quarter.
"use strict";

(() => {
  const { send, say } = Companion;
  const cellOf = (text) => text.split(",").map(Number);
  // Each part of a tile clockwise from the north side's west half (castle.md's names).
  const PARTS = ["Nw", "N", "Ne", "En", "E", "Es", "Se", "S", "Sw", "Ws", "W", "Wn"];
  const HALVES = PARTS.filter((name) => name.length === 2);
  const CYCLE = ["", "tower", "house", "courtyard"];

  async function enter(record) {
    try {
      await send("/api/event", { ...record, meta: { source: "phone" } });
      say("Saved. The scoreboard and the timeline show it.", true);
      setTimeout(() => window.location.reload(), 700);
    } catch (error) {
      say(error.message);
    }
  }

  // --- the wall tile under the corner a marker landed on -----------------------------------
  const take = document.getElementById("castle-take");
  if (take) {
    for (const button of take.querySelectorAll("button.castle-wall")) {
      button.addEventListener("click", () => enter({
        event: "take", player: take.dataset.player, space: Number(take.dataset.space), wall: Number(button.dataset.wall),
      }));
    }
  }

  // --- a wall tile played: one tap -----------------------------------------------------------
  for (const button of document.querySelectorAll("#castle-uses button.castle-use")) {
    button.addEventListener("click", () => enter(JSON.parse(button.dataset.record)));
  }

  // --- the scoring order: tap the features in order, then send -------------------------------
  const order = document.getElementById("castle-order");
  if (order) {
    const chosen = [];
    const list = order.querySelector(".castle-order-chosen");
    const buttons = [...order.querySelectorAll("button.castle-ordered")];
    const sendButton = order.querySelector(".castle-order-send");
    const draw = () => {
      list.replaceChildren(...chosen.map((button) => Companion.el("li", button.textContent)));
      for (const button of buttons) button.disabled = chosen.includes(button);
      sendButton.disabled = chosen.length !== buttons.length;
    };
    for (const button of buttons) button.addEventListener("click", () => { chosen.push(button); draw(); });
    order.querySelector(".castle-order-clear").addEventListener("click", () => { chosen.length = 0; draw(); });
    sendButton.addEventListener("click", () => enter({
      event: "order", player: order.dataset.player, features: chosen.map((button) => JSON.parse(button.dataset.ref)),
    }));
  }

  // --- a follower: tap its ring ----------------------------------------------------------------
  const follower = document.getElementById("castle-follower");
  if (follower) {
    const words = JSON.parse(follower.dataset.words);
    for (const spot of follower.querySelectorAll(".spot")) {
      spot.setAttribute("role", "button");
      spot.setAttribute("tabindex", "0");
      spot.setAttribute("aria-label", words[spot.dataset.feature] || spot.dataset.feature);
      spot.addEventListener("click", () => enter({
        event: "meeple", player: follower.dataset.player, at: cellOf(spot.dataset.at), feature: spot.dataset.feature,
      }));
    }
  }

  // --- a tile: its space, its shape from the box, turned, placed ------------------------------
  const card = document.getElementById("castle-tile");
  if (card) {
    const chooser = card.querySelector(".castle-chooser");
    const drawn = card.querySelector("form.castle-drawn");
    const legal = JSON.parse(card.dataset.legal);
    const wayButtons = [...chooser.querySelectorAll("button.castle-way")];
    let cell = null;
    let ways = [];
    let way = 0;

    const choose = (key) => {
      cell = key;
      for (const target of card.querySelectorAll(".target")) target.classList.toggle("chosen", target.dataset.cell === key);
      const fitting = legal[key] || {};
      chooser.hidden = false;
      chooser.querySelector(".which").textContent = Object.keys(fitting).length
        ? `Which tile lies at [${key}]? The box's shapes that fit there:`
        : "No shape of the box fits there: draw its sides.";
      ways = [];
      for (const button of wayButtons) {
        const turns = fitting[button.dataset.shape] || [];
        button.hidden = Number(button.dataset.rotation) !== turns[0];
        button.classList.remove("picked");
      }
      chooser.querySelector(".castle-turn").hidden = true;
      chooser.querySelector(".castle-place").hidden = true;
      chooser.querySelector(".chosen").textContent = "";
      drawn.hidden = true;
      chooser.scrollIntoView({ block: "nearest" });
    };
    const show = () => {
      for (const button of wayButtons) {
        button.hidden = !ways.includes(button) || button !== ways[way];
        button.classList.toggle("picked", button === ways[way]);
      }
      const label = ways[way].getAttribute("aria-label");
      chooser.querySelector(".chosen").textContent = `${label}${ways.length > 1 ? ` (way ${way + 1} of ${ways.length})` : ""}`;
      chooser.querySelector(".castle-turn").hidden = ways.length < 2;
      chooser.querySelector(".castle-place").hidden = false;
    };
    const pick = (shape) => {
      const turns = (legal[cell] || {})[shape] || [];
      ways = wayButtons.filter((b) => b.dataset.shape === shape && turns.includes(Number(b.dataset.rotation)));
      way = 0;
      show();
    };
    for (const target of card.querySelectorAll(".castle-targets .target")) {
      target.setAttribute("role", "button");
      target.setAttribute("tabindex", "0");
      target.setAttribute("aria-label", `the space [${target.dataset.cell}]`);
      target.addEventListener("click", () => choose(target.dataset.cell));
    }
    for (const button of wayButtons) {
      button.addEventListener("click", () => (ways.includes(button) ? null : pick(button.dataset.shape)));
    }
    chooser.querySelector(".castle-turn").addEventListener("click", () => { way = (way + 1) % ways.length; show(); });
    chooser.querySelector(".castle-place").addEventListener("click", () => enter({
      event: "tile", player: card.dataset.player, at: cellOf(cell), tile: JSON.parse(ways[way].dataset.tile),
    }));
    chooser.querySelector(".castle-draw").addEventListener("click", () => {
      drawn.hidden = false;
      drawn.scrollIntoView({ block: "nearest" });
    });

    // Drawing the sides: each half cycles nothing -> tower -> house -> courtyard, each middle
    // path or not. Halves of one kind side by side are one feature: round a corner always,
    // across a side's middle only where no path cuts them.
    const parts = Object.fromEntries([...drawn.querySelectorAll("button.castle-part")].map((b) => [b.dataset.part, b]));
    const kindOf = (name) => parts[name].dataset.kind;
    const features = () => {
      const group = Object.fromEntries(HALVES.map((name) => [name, name]));
      const root = (name) => (group[name] === name ? name : root(group[name]));
      HALVES.forEach((name, i) => {
        const next = HALVES[(i + 1) % HALVES.length];
        const between = PARTS[(PARTS.indexOf(name) + 1) % PARTS.length];
        const cut = between.length === 1 && kindOf(between) === "path";
        if (kindOf(name) && kindOf(name) === kindOf(next) && !cut) group[root(next)] = root(name);
      });
      const found = [];
      const byRoot = {};
      for (const name of HALVES) {
        if (!kindOf(name)) continue;
        const key = root(name);
        if (!byRoot[key]) found.push((byRoot[key] = { kind: kindOf(name), edges: [] }));
        byRoot[key].edges.push(name);
      }
      const middles = PARTS.filter((name) => name.length === 1 && kindOf(name) === "path");
      const paths = drawn["paths-meet"].checked ? (middles.length ? [middles] : []) : middles.map((m) => [m]);
      const result = paths.map((sides) => ({ kind: "path", edges: sides.join(" ") }));
      if (result.length && drawn.fountain.checked) result[0].fountain = true;
      for (const feature of found) result.push({ kind: feature.kind, edges: feature.edges.join(" ") });
      const markets = Number(drawn.markets.value);
      const courtyard = result.find((f) => f.kind === "courtyard");
      if (courtyard && markets) courtyard.markets = markets;
      if (drawn.inner.value) result.push({ kind: drawn.inner.value, edges: "" });
      return result;
    };
    const words = () => {
      const list = features();
      drawn.querySelector(".castle-drawn-words").textContent = list.length
        ? list.map((f) => `${f.kind}${f.edges ? ` ${f.edges}` : " inside"}${f.fountain ? " with a fountain" : ""}${f.markets ? ` (${f.markets} markets)` : ""}`).join("; ")
        : "Nothing drawn yet.";
    };
    for (const button of Object.values(parts)) {
      button.addEventListener("click", () => {
        const middle = button.dataset.part.length === 1;
        const now = button.dataset.kind;
        button.dataset.kind = middle ? (now ? "" : "path") : CYCLE[(CYCLE.indexOf(now) + 1) % CYCLE.length];
        button.textContent = button.dataset.kind || button.dataset.part;
        words();
      });
    }
    drawn.addEventListener("change", words);
    drawn.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!cell) return say("Tap the space where the tile lies first.");
      enter({ event: "tile", player: card.dataset.player, at: cellOf(cell), tile: { features: features() } });
    });
    words();
  }

  // --- a recorded tile turned a quarter, clockwise: each part to the same part of the next side
  const turnedName = (name) => (name.length === 1 ? "ESWN"["NESW".indexOf(name)] : PARTS[(PARTS.indexOf(name) + 3) % 12]);
  for (const rotate of document.querySelectorAll("form.fix .castle-rotate")) {
    rotate.addEventListener("click", () => {
      const form = rotate.closest("form");
      const record = JSON.parse(form.event.value);
      for (const feature of (record.tile && record.tile.features) || []) {
        if (feature.edges) feature.edges = (feature.edges.match(/[NESW][nesw]?/g) || []).map(turnedName).join(" ");
      }
      form.event.value = JSON.stringify(record);
      form.querySelector("details.advanced").open = true;
    });
  }
})();
