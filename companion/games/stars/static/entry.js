// Among the Stars on the fix page: every action of the table entered in taps. The page is drawn
// by its template (stars/fix.html); this only reads the taps into record events and sends them.
"use strict";

(() => {
  const { send, say } = Companion;
  const root = document.getElementById("stars-entry");
  const keepForm = document.getElementById("stars-keep");
  const meta = { source: "phone" };

  const cell = (text) => text.split(",").map(Number);
  const where = (at) => `[${at.join(", ")}]`;

  async function enter(record, afterwards) {
    try {
      await send("/api/event", record);
      if (afterwards) await afterwards();
      say("Saved. The timeline shows it.", true);
      setTimeout(() => window.location.reload(), 400);
    } catch (error) {
      say(error.message);
    }
  }

  // --- a card entered once --------------------------------------------------------------------

  // The card a card form describes, as the record's inline card; null without a name.
  function enteredCard(form) {
    const name = form["card-name"].value.trim();
    if (!name) return null;
    const card = {
      name,
      type: form["card-type"].value,
      cost: Number(form["card-cost"].value),
      vp: Number(form["card-vp"].value),
    };
    const energy = Number(form["card-energy"].value);
    if (energy) card.energy = energy;
    if (form["card-max"].value) card.max = Number(form["card-max"].value);
    const timing = form["card-timing"].value;
    if (timing) {
      const kind = form["card-kind"].value;
      const ability = { timing, kind };
      if (kind.startsWith("vp_")) ability.vp = Number(form["card-ability-vp"].value);
      const type = form["card-ability-type"].value;
      if (kind === "vp_per_type_in_station" || (kind === "vp_per_adjacent" && type)) ability.type = type || form["card-type"].value;
      if (kind === "credits") ability.credits = Number(form["card-credits"].value);
      const text = form["card-text"].value.trim();
      if (text) ability.text = text;
      card.ability = ability;
    }
    return card;
  }

  function cardWords(card) {
    if (!card) return "no card named yet";
    let words = `${card.name}: ${card.type}, costs ${card.cost}, ${card.vp} VP`;
    if (card.energy) words += `, ${card.energy} energy`;
    if (card.max) words += `, MAX ${card.max}`;
    if (card.ability) words += `, ${card.ability.timing} ability (${card.ability.kind.replaceAll("_", " ")})`;
    return words;
  }

  // Only the questions the ability calls for: VP, a type, credits.
  function refreshCardFields(form) {
    const fields = form.querySelector(".stars-new-card");
    if (!fields) return;
    const timing = form["card-timing"].value;
    const kind = form["card-kind"].value;
    fields.querySelector(".stars-ability-fields").hidden = !timing;
    fields.querySelector(".if-vp").hidden = !kind.startsWith("vp_");
    fields.querySelector(".if-type").hidden = !["vp_per_adjacent", "vp_per_type_in_station"].includes(kind);
    fields.querySelector(".if-credits").hidden = kind !== "credits";
    for (const input of form.querySelectorAll("input[name=card-kind][value=credits]")) {
      input.disabled = timing === "delayed"; // credits come with the build: immediate only
    }
    fields.querySelector(".stars-card-preview").textContent = cardWords(enteredCard(form));
  }

  function keepCard(card) {
    return send("/api/stars/cards", { card });
  }

  if (keepForm) {
    keepForm.addEventListener("input", () => refreshCardFields(keepForm));
    refreshCardFields(keepForm);
    keepForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const card = enteredCard(keepForm);
      if (!card) return say("Give the card's name as printed.");
      try {
        await keepCard(card);
        say(`${card.name} is kept: every phone offers it from now on.`, true);
        setTimeout(() => window.location.reload(), 400);
      } catch (error) {
        say(error.message);
      }
    });
  }

  if (!root) return;

  // --- the year, the counts by hand, removals, the end ------------------------------------------

  const year = document.getElementById("stars-year");
  if (year) {
    year.addEventListener("submit", (event) => {
      event.preventDefault();
      enter({ event: "year", year: Number(year.dataset.year), pass: year.pass.value, meta });
    });
  }
  for (const form of root.querySelectorAll("form.stars-count")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const at = JSON.parse(form.dataset.at);
      enter({ event: "ability", player: form.dataset.player, at, vp: Number(form.vp.value), meta });
    });
  }
  for (const form of root.querySelectorAll("form.stars-objective")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const counts = {};
      for (const select of form.querySelectorAll("select[name=count]")) counts[select.dataset.player] = Number(select.value);
      enter({ event: "objective", name: form.dataset.name, counts, meta });
    });
  }
  for (const button of root.querySelectorAll("button.stars-remove")) {
    button.addEventListener("click", () => {
      enter({ event: "remove", player: button.dataset.player, at: JSON.parse(button.dataset.at), meta });
    });
  }
  const end = document.getElementById("stars-end");
  if (end) {
    end.addEventListener("click", async () => {
      try {
        await send("/api/end", {});
        say("The game is over: the final scoring is on the scoreboard.", true);
        setTimeout(() => { window.location.href = "/"; }, 400);
      } catch (error) {
        say(error.message);
      }
    });
  }

  // --- one player's action ----------------------------------------------------------------------

  const form = document.getElementById("stars-action");
  if (!form) return;
  const paying = new Map(); // reactor cell "x,y" -> cubes it pays

  function station() {
    return form.querySelector(`.stars-station-entry[data-player="${CSS.escape(form.player.value)}"]`);
  }

  function chosenCard() {
    const choice = form.querySelector("input[name=card]:checked");
    if (!choice || choice.value === "none") return null;
    if (choice.value === "new") return enteredCard(form);
    return JSON.parse(choice.dataset.card);
  }

  function chosenCell() {
    const picked = form.querySelector("input[name=at]:checked");
    return picked ? cell(picked.value) : null;
  }

  // The reactors a card at ``at`` may draw on: within 2 cards, every step on a built card.
  function inReach(grid, at) {
    const built = new Set([...grid.querySelectorAll(".stars-cell[data-at]")].map((node) => node.dataset.at));
    const seen = new Set([at.join(",")]);
    let ring = [at];
    const reach = new Set();
    for (let step = 0; step < 2; step += 1) {
      const next = [];
      for (const [x, y] of ring) {
        for (const [dx, dy] of [[1, 0], [0, 1], [-1, 0], [0, -1]]) {
          const key = `${x + dx},${y + dy}`;
          if (built.has(key) && !seen.has(key)) {
            seen.add(key);
            reach.add(key);
            next.push([x + dx, y + dy]);
          }
        }
      }
      ring = next;
    }
    return reach;
  }

  function energyFrom() {
    const cells = [];
    for (const [key, count] of paying) for (let i = 0; i < count; i += 1) cells.push(cell(key));
    return cells;
  }

  function refresh() {
    const action = form.does.value;
    const player = form.player.value;
    for (const entry of form.querySelectorAll(".stars-station-entry")) entry.hidden = entry.dataset.player !== player;
    const choice = form.querySelector("input[name=card]:checked");
    const noCard = form.querySelector(".if-no-build");
    noCard.hidden = action === "build";
    if (action === "build" && choice && choice.value === "none") {
      choice.checked = false;
    }
    const card = chosenCard();
    const newCard = form.querySelector("input[name=card][value=new]");
    form.querySelector(".stars-new-card").hidden = !newCard.checked;
    refreshCardFields(form);
    const grid = station();
    const needs = action === "build" && card ? card.energy || 0 : 0;
    const at = chosenCell();
    const reach = at && grid ? inReach(grid, at) : new Set();
    for (const button of form.querySelectorAll(".stars-pay")) {
      const mine = grid && grid.contains(button);
      const count = mine ? paying.get(button.dataset.at) || 0 : 0;
      button.disabled = !mine || needs === 0;
      button.classList.toggle("in-reach", needs > 0 && reach.has(button.dataset.at));
      button.classList.toggle("paying", count > 0);
      button.querySelector(".stars-paying").textContent = count ? `pays ${count}` : "";
    }
    for (const hint of form.querySelectorAll(".if-pay")) hint.hidden = needs === 0;
    for (const hint of form.querySelectorAll(".if-place")) hint.hidden = action === "discard";
    for (const open of form.querySelectorAll(".stars-open")) open.hidden = action === "discard";
    const what = {
      build: `${player} builds ${card ? card.name : "a card"}${at ? ` at ${where(at)}` : ""}`,
      reactor: `${player} builds a power reactor${at ? ` at ${where(at)}` : ""}${card ? `, giving up ${card.name}` : ""}`,
      discard: `${player} discards ${card ? card.name : "a card"} for 3 credits`,
    }[action];
    const paid = energyFrom();
    const energy = needs ? `; energy ${paid.length} of ${needs}${paid.length ? ` from ${paid.map(where).join(", ")}` : ""}` : "";
    form.querySelector(".stars-summary").textContent = what + energy;
  }

  form.addEventListener("change", (event) => {
    if (event.target.name === "player") {
      paying.clear();
      for (const input of form.querySelectorAll("input[name=at]")) input.checked = false;
    }
    refresh();
  });
  form.addEventListener("input", refresh);
  for (const button of form.querySelectorAll(".stars-pay")) {
    button.addEventListener("click", () => {
      const cubes = Number(button.dataset.cubes);
      const count = ((paying.get(button.dataset.at) || 0) + 1) % (cubes + 1);
      if (count) paying.set(button.dataset.at, count);
      else paying.delete(button.dataset.at);
      refresh();
    });
  }
  refresh();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const action = form.does.value;
    const player = form.player.value;
    const card = chosenCard();
    const choice = form.querySelector("input[name=card]:checked");
    const isNew = choice && choice.value === "new";
    if (isNew && !card) return say("Give the new card's name as printed, or pick a card above.");
    const record = { event: action, player };
    if (action !== "discard") {
      const at = chosenCell();
      if (!at) return say("Tap the cell of the station where it is built.");
      record.at = at;
    }
    if (action === "build") {
      if (!card) return say("Which card is built? Pick it, or enter it once.");
      record.card = card;
      const paid = energyFrom();
      if (paid.length) record.energy_from = paid;
    } else if (card) {
      record.card = card;
    }
    record.meta = meta;
    enter(record, isNew ? () => keepCard(card) : null);
  });
})();
