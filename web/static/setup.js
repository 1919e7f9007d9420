// Setup: start a game with its players, or end the game under way.
"use strict";

(() => {
  const { send, say } = Companion;
  const list = document.getElementById("players-form");

  document.getElementById("add-player").addEventListener("click", () => {
    const rows = list.querySelectorAll(".player-row");
    if (rows.length >= 5) return say("At most 5 players.");
    const copy = rows[rows.length - 1].cloneNode(true);
    copy.querySelector("input").value = "";
    list.append(copy);
  });
  list.addEventListener("click", (event) => {
    if (event.target.classList.contains("remove") && list.children.length > 2) event.target.closest("li").remove();
  });

  document.getElementById("setup").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const players = [...list.querySelectorAll(".player-row")].map((row) => ({
      name: row.querySelector("input").value.trim(),
      color: row.querySelector("select").value,
    }));
    const header = { game: form.game.value, variant: form.variant.value, players };
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
