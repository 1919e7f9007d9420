// Setup: start a game with its players, or end the game under way. Choosing another game draws
// its form (/setup?game=NAME): each game's players, colours and options are the server's.
"use strict";

(() => {
  const { send, say } = Companion;
  const form = document.getElementById("setup");
  const list = document.getElementById("players-form");

  document.getElementById("game-choice").addEventListener("change", (event) => {
    window.location.href = `/setup?game=${encodeURIComponent(event.target.value)}`;
  });

  document.getElementById("add-player").addEventListener("click", () => {
    const rows = list.querySelectorAll(".player-row");
    const most = Number(list.dataset.most);
    if (rows.length >= most) return say(`At most ${most} players.`);
    const copy = rows[rows.length - 1].cloneNode(true);
    copy.querySelector("input").value = "";
    list.append(copy);
  });
  list.addEventListener("click", (event) => {
    if (!event.target.classList.contains("remove")) return;
    const fewest = Number(list.dataset.fewest);
    if (list.children.length <= fewest) return say(`This game needs at least ${fewest} players.`);
    event.target.closest("li").remove();
  });

  // A game's own options: inputs named "option:KEY" (its setup partial: the header's keys) or
  // "player:KEY" (its setup_player partial, in each player's row), read as JSON where they say
  // data-json, else as text; an empty one is left out.
  function options(within, prefix, skip) {
    const found = {};
    for (const input of within.querySelectorAll(`[name^='${prefix}']`)) {
      if (skip && skip.contains(input)) continue;
      if (input.type === "radio" && !input.checked) continue;
      const key = input.name.slice(prefix.length);
      const text = input.value.trim();
      if (!text) continue;
      found[key] = input.dataset.json !== undefined ? JSON.parse(text) : text;
    }
    return found;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let header;
    try {
      const players = [...list.querySelectorAll(".player-row")].map((row) => {
        const player = { name: row.querySelector("input[name=name]").value.trim() };
        const colour = row.querySelector("[name=color]");
        if (colour && colour.value.trim()) player.color = colour.value.trim();
        return { ...player, ...options(row, "player:") };
      });
      header = { game: form.dataset.game, variant: form.variant.value, players, ...options(form, "option:", list) };
    } catch (error) {
      return say(`An option is not valid JSON: ${error.message}`);
    }
    try {
      await send("/api/games", header);
      window.location.href = "/";
    } catch (error) {
      if (!/a game is under way/.test(error.message)) return say(error.message);
      if (!window.confirm("A game is under way. Start a new one and leave it unfinished?")) return;
      try {
        await send("/api/games?abandon=1", header);
        window.location.href = "/";
      } catch (again) {
        say(again.message);
      }
    }
  });

  const end = document.getElementById("end-game");
  if (end) {
    end.addEventListener("click", async () => {
      if (!window.confirm("End the game and do the final scoring?")) return;
      try {
        await send("/api/end", {});
        window.location.href = "/";
      } catch (error) {
        say(error.message);
      }
    });
  }
})();
