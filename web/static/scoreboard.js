// The scoreboard follows the game live: on every change the server draws its live part again
// (the same template as the page) and it takes that part's place.
"use strict";

(() => {
  const board = document.getElementById("board");

  function scores() {
    return Object.fromEntries([...board.querySelectorAll(".player")].map((p) => [p.dataset.player, p.dataset.score]));
  }

  Companion.follow("scoreboard", board, (before) => {
    // a score that changed flashes once
    for (const item of board.querySelectorAll(".player")) {
      const was = before[item.dataset.player];
      if (was !== undefined && was !== item.dataset.score) item.classList.add("scored");
    }
  }, scores);
})();
