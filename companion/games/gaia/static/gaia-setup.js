// Gaia's setup: objectives entered by tapping their cards, and each player's starting hand.
// The common setup sends players as name and colour only, so a Gaia game is started here, with
// "hand" in every player (the record needs it); the rest of the form is read as the common setup
// reads it.
"use strict";

(() => {
  const { send, say } = Companion;
  const form = document.getElementById("setup");
  if (!form || form.dataset.game !== "gaia") return;
  const field = form.querySelector('input[name="option:objectives"]');
  const list = form.querySelector(".gaia-objective-list");
  const fresh = form.querySelector(".gaia-objective-new");
  let objectives = JSON.parse(field.value);
  let cards = [];

  function draw() {
    field.value = JSON.stringify(objectives);
    list.replaceChildren(...objectives.map((o, index) => {
      const item = Companion.el("li", `${o.id}: ${o.cards.join(", ")} `);
      const remove = Companion.el("button", "remove");
      remove.type = "button";
      remove.addEventListener("click", () => { objectives.splice(index, 1); draw(); });
      item.append(remove);
      return item;
    }));
    fresh.textContent = cards.length ? `New objective: ${cards.join(", ")}` : "";
  }
  for (const button of form.querySelectorAll(".gaia-objective-card")) {
    button.addEventListener("click", () => {
      if (cards.length < 6) cards.push(button.dataset.card);
      draw();
    });
  }
  form.querySelector(".gaia-objective-add").addEventListener("click", () => {
    if (!cards.length) return say("Tap the cards the objective shows first.");
    if (objectives.length >= 9) return say("9 objectives at most.");
    const taken = new Set(objectives.map((o) => o.id));
    let number = 1;
    while (taken.has(`O${number}`)) number += 1;
    objectives.push({ id: `O${number}`, cards });
    cards = [];
    draw();
  });

  const hand = { nature: 2, life: 1 };
  function step(kind, by) {
    const total = hand.nature + hand.life + by;
    if (hand[kind] + by < 0 || total > 6) return;
    hand[kind] += by;
    form.querySelector(`output[data-kind="${kind}"]`).textContent = String(hand[kind]);
  }
  for (const button of form.querySelectorAll(".gaia-less")) button.addEventListener("click", () => step(button.dataset.kind, -1));
  for (const button of form.querySelectorAll(".gaia-more")) button.addEventListener("click", () => step(button.dataset.kind, 1));

  function header() {
    const players = [...form.querySelectorAll(".player-row")].map((row) => ({
      name: row.querySelector("input[name=name]").value.trim(),
      color: row.querySelector("[name=color]").value,
      hand: { ...hand },
    }));
    const variant = form.querySelector("[name=variant]:checked") || form.querySelector("[name=variant]");
    return { game: "gaia", variant: variant.value, players, objectives };
  }

  // Seen before the common setup's own handler (capture), which would leave the hands out.
  document.addEventListener("submit", async (event) => {
    if (event.target !== form) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (!form.reportValidity()) return;
    try {
      await send("/api/games", header());
      window.location.href = "/";
    } catch (error) {
      if (!/a game is under way/.test(error.message)) return say(error.message);
      if (!window.confirm("A game is under way. Start a new one and leave it unfinished?")) return;
      try {
        await send("/api/games?abandon=1", header());
        window.location.href = "/";
      } catch (again) {
        say(again.message);
      }
    }
  }, true);
  draw();
})();
