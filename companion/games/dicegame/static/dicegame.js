// The Dice Game on the fix page, in taps: a roll entered face by face; a die of the tray set aside
// (a city die placed on a lit cell of the drawn city and turned among the ways it fits); the end
// of the turn. The page is drawn by its template; after each event it is drawn again.
// Also the fields that correct a recorded event (edit.html): faces, a turn, a move by one cell.
"use strict";

(() => {
  const { send, say, el } = Companion;
  const entry = document.getElementById("dice-entry");

  async function enter(record) {
    try {
      await send("/api/event", { ...record, meta: { source: "phone" } });
      say("Saved.", true);
      window.location.reload();
    } catch (error) {
      say(error.message);
    }
  }

  if (entry) {
    const player = entry.dataset.player;

    // --- a roll: one tap per die, each tapped face can be tapped again to take it back ---
    const toRoll = Number(entry.dataset.toRoll);
    const thrown = [];
    const list = document.getElementById("thrown");
    const count = document.getElementById("thrown-count");
    const rollSend = document.getElementById("roll-send");
    function showThrown() {
      if (!list) return;
      list.replaceChildren();
      thrown.forEach((face, index) => {
        const chip = el("button", undefined, "dg-chip");
        chip.type = "button";
        chip.dataset.face = face;
        chip.setAttribute("aria-label", `${face}: tap to take it back`);
        const icon = entry.querySelector(`.dg-add[data-face="${face}"] svg`);
        if (icon) chip.append(icon.cloneNode(true));
        chip.addEventListener("click", () => { thrown.splice(index, 1); showThrown(); });
        list.append(chip);
      });
      count.textContent = `${thrown.length} of ${toRoll}`;
      rollSend.disabled = thrown.length !== toRoll;
    }
    for (const button of entry.querySelectorAll(".dg-add")) {
      button.addEventListener("click", () => {
        if (thrown.length >= toRoll) return say(`That is all ${toRoll} dice: take one back first.`);
        thrown.push(button.dataset.face);
        showThrown();
      });
    }
    if (rollSend) {
      rollSend.addEventListener("click", () => enter({ event: "roll", player, dice: thrown }));
      document.getElementById("roll-clear").addEventListener("click", () => { thrown.length = 0; showThrown(); });
    }

    // --- a die set aside: a knight at once; a city die on a lit cell, turned, then laid ---
    const fits = JSON.parse(entry.dataset.fits || "{}");
    const lay = document.getElementById("lay");
    const help = document.getElementById("lay-help");
    const turnButton = document.getElementById("lay-turn");
    const laySend = document.getElementById("lay-send");
    const spot = document.getElementById("dg-preview-spot");
    const cells = [...entry.querySelectorAll(".dg-cell")];
    let chosen = null; // { face, key, turns, index }

    function quarters(n) { return n === 1 ? "1 quarter" : `${n} quarters`; }

    function preview() {
      spot.replaceChildren();
      if (!chosen || !chosen.key) return;
      const [x, y] = chosen.key.split(",").map(Number);
      const rotation = chosen.turns[chosen.index];
      const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
      use.setAttribute("href", `#dg-proto-${chosen.face}`);
      use.setAttribute("transform", `translate(${x} ${y}) rotate(${90 * rotation} 0.5 0.5)`);
      spot.append(use);
      help.textContent = `The ${chosen.face} at [${x}, ${y}], turned ${quarters(rotation)}${chosen.turns.length > 1 ? " (Turn it for the other ways it fits)" : ""}.`;
      turnButton.disabled = chosen.turns.length < 2;
      laySend.disabled = false;
    }

    function choose(face) {
      const places = fits[face] || {};
      chosen = { face, key: null, turns: [], index: 0 };
      for (const cell of cells) {
        cell.classList.toggle("dg-can", cell.dataset.at in places);
        cell.classList.toggle("dg-cannot", !(cell.dataset.at in places));
      }
      for (const button of entry.querySelectorAll(".dg-take")) button.classList.toggle("dg-chosen", button.dataset.face === face);
      lay.hidden = false;
      laySend.disabled = true;
      turnButton.disabled = true;
      spot.replaceChildren();
      help.textContent = Object.keys(places).length
        ? `Tap a lit cell of the city for the ${face}.`
        : `The ${face} fits nowhere beside this city.`;
    }

    function cancel() {
      chosen = null;
      for (const cell of cells) cell.classList.remove("dg-can", "dg-cannot");
      for (const button of entry.querySelectorAll(".dg-take")) button.classList.remove("dg-chosen");
      if (spot) spot.replaceChildren();
      if (lay) lay.hidden = true;
    }

    for (const button of entry.querySelectorAll(".dg-take")) {
      button.addEventListener("click", () => {
        const face = button.dataset.face;
        if (face === "knight") return enter({ event: "aside", player, face });
        choose(face);
      });
    }
    for (const cell of cells) {
      cell.addEventListener("click", () => {
        if (!chosen || !cell.classList.contains("dg-can")) return;
        chosen.key = cell.dataset.at;
        chosen.turns = fits[chosen.face][chosen.key];
        chosen.index = 0;
        preview();
      });
    }
    if (lay) {
      turnButton.addEventListener("click", () => {
        if (!chosen || !chosen.key) return;
        chosen.index = (chosen.index + 1) % chosen.turns.length;
        preview();
      });
      laySend.addEventListener("click", () => {
        if (!chosen || !chosen.key) return;
        const at = chosen.key.split(",").map(Number);
        enter({ event: "aside", player, face: chosen.face, at, rotation: chosen.turns[chosen.index] });
      });
      document.getElementById("lay-cancel").addEventListener("click", cancel);
    }

    // --- the end of the turn ---
    const score = document.getElementById("score-turn");
    if (score) score.addEventListener("click", () => enter({ event: "score", player }));
    const keep = document.getElementById("keep-knight");
    if (keep) keep.addEventListener("click", () => enter({ event: "keep", player }));
  }

  // --- correcting a recorded event (edit.html): the event's JSON follows the taps ---
  function rewrite(form, change) {
    const record = JSON.parse(form.event.value);
    change(record);
    form.event.value = JSON.stringify(record);
  }
  for (const select of document.querySelectorAll("form.fix .dg-edit-die")) {
    select.addEventListener("change", () => rewrite(select.form, (record) => { record.dice[Number(select.dataset.index)] = select.value; }));
  }
  const STEP = { N: [0, -1], S: [0, 1], W: [-1, 0], E: [1, 0] };
  for (const button of document.querySelectorAll("form.fix .dg-move-die")) {
    button.addEventListener("click", () => {
      const form = button.closest("form");
      rewrite(form, (record) => {
        const [dx, dy] = STEP[button.dataset.side];
        record.at = [record.at[0] + dx, record.at[1] + dy];
        form.querySelector(".dg-at").textContent = record.at.join(", ");
      });
    });
  }
})();
