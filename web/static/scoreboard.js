// The scoreboard follows the game live: on every change the server draws its live part again
// (the same template as the page) and it takes that part's place. While a game is live the
// phone's screen is kept awake; a score can sound and buzz (off until the player turns it on).
"use strict";

(() => {
  const board = document.getElementById("board");
  const sound = document.getElementById("sound");
  sound.checked = localStorage.getItem("score-sound") === "1";
  sound.addEventListener("change", () => {
    localStorage.setItem("score-sound", sound.checked ? "1" : "0");
    if (sound.checked) announce(); // a first sound, from the tap itself, unlocks audio on phones
  });

  function scores() {
    return Object.fromEntries([...board.querySelectorAll(".player")].map((p) => [p.dataset.player, p.dataset.score]));
  }

  let audio = null;
  function announce() {
    if (navigator.vibrate) navigator.vibrate(120);
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    audio = audio || new Context();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  }

  // The screen stays on while a game is live (where the browser offers a wake lock).
  let lock = null;
  async function keepAwake() {
    const live = board.querySelector("[data-live]")?.dataset.live === "1";
    if (live && !lock && navigator.wakeLock && document.visibilityState === "visible") {
      try {
        lock = await navigator.wakeLock.request("screen");
        lock.addEventListener("release", () => { lock = null; });
      } catch (error) {
        lock = null; // refused (a battery saver): the screen sleeps as usual
      }
    } else if (!live && lock) {
      lock.release();
      lock = null;
    }
  }
  document.addEventListener("visibilitychange", keepAwake);
  keepAwake();

  Companion.follow("scoreboard", board, (before) => {
    let scored = false;
    for (const item of board.querySelectorAll(".player")) {
      const was = before[item.dataset.player];
      if (was !== undefined && was !== item.dataset.score) {
        item.classList.add("scored"); // a score that changed flashes once
        scored = true;
      }
    }
    if (scored && sound.checked) announce();
    keepAwake();
  }, scores);
})();
