// Gaia's setup: the objectives laid face up, entered by tapping their cards, kept in the hidden
// "option:objectives" field that the setup page sends as the header's "objectives". Each
// player's starting hand is a field of the player's own row (setup_player.html).
"use strict";

(() => {
  const { say } = Companion;
  const form = document.getElementById("setup");
  if (!form || form.dataset.game !== "gaia") return;
  const field = form.querySelector('input[name="option:objectives"]');
  const list = form.querySelector(".gaia-objective-list");
  const fresh = form.querySelector(".gaia-objective-new");
  const objectives = JSON.parse(field.value);
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
  draw();
})();
