// The site's page behaviour (loaded once by overrides/main.html; instant navigation keeps it):
// the language switch keeps the reader's place and colour scheme, a merged entry's old #id
// redirects, the all-idioms and compatibility pages filter as the reader types, an entry's
// "Copy Markdown" button copies it, the progress bar is named.
(function () {
  "use strict";
  var script = document.currentScript;
  // This language's site root, fixed at the first load, from Material's own config.
  // (The 404 page's base is "/": no second slash.)
  var base = JSON.parse(document.getElementById("__config").textContent).base;
  var siteRoot = new URL(base.replace(/\/$/, "") + "/", location);

  // Switching language keeps the page and the entry or section the reader is on, also after
  // instant navigation, a search click or back/forward: the link is rebuilt from the current
  // address. Entry and section ids are the same in both languages.
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.md-select__link[data-root]");
    if (link && location.pathname.indexOf(siteRoot.pathname) === 0) {
      var page = location.pathname.slice(siteRoot.pathname.length);
      link.href = new URL(link.dataset.root + page, siteRoot).href + location.hash;
    }
  }, true);

  // Material keeps the colour scheme per site root; copy the reader's choice to the other
  // languages' roots so that switching language keeps it.
  document.addEventListener("change", function (event) {
    if (!event.target.closest("[data-md-component=palette]")) return;
    setTimeout(function () {  // after Material has stored it
      var chosen = localStorage.getItem(siteRoot.pathname + ".__palette");
      document.querySelectorAll("a.md-select__link[data-root]").forEach(function (link) {
        localStorage.setItem(new URL(link.dataset.root, siteRoot).pathname + ".__palette", chosen);
      });
    });
  });

  // An entry merged into one on another page left an anchor here that names its new place
  // (cheatsheet/site/aliases.py): a reader who arrives with its #id goes there.
  document$.subscribe(function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var alias = id && document.getElementById(id);
    if (alias && alias.dataset.movedTo) {
      location.replace(new URL(alias.dataset.movedTo, location.href));
    }
  });

  // All idioms and the compatibility matrix: keep the rows that hold every typed word, and the
  // groups that keep a row (the groups beside the box, in the block the plugin generated).
  document$.subscribe(function () {
    var box = document.querySelector(".idiom-filter");
    if (!box) return;
    // The compatibility page also picks a release: only its columns stay, and the rows whose cells
    // there say what the second list asks for (passed, failed, or no pass).
    var release = box.parentElement.querySelector(".compat-release");
    var show = box.parentElement.querySelector(".compat-show");
    var summary = box.parentElement.querySelector(".compat-release-summary");
    function verdict(cells) {
      if (cells.some(function (c) { return c.classList.contains("compat-passed"); })) return "works";
      return cells.some(function (c) { return c.classList.contains("compat-failed"); }) ? "fails" : "other";
    }
    function update() {
      var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      var chosen = release ? release.value : "", wanted = show && chosen ? show.value : "all";
      var counts = { works: 0, fails: 0, other: 0 };
      if (show) show.disabled = !chosen;
      box.parentElement.querySelectorAll(".idiom-group").forEach(function (group) {
        // which columns belong to the chosen release (the entry and "since" columns always stay)
        var keep = [].map.call(group.querySelectorAll("thead th"), function (th) {
          return !chosen || !th.dataset.release || th.dataset.release === chosen;
        });
        group.querySelectorAll("tr").forEach(function (row) {
          [].forEach.call(row.children, function (cell, i) { cell.hidden = !keep[i]; });
        });
        var shown = 0;
        group.querySelectorAll("tbody tr").forEach(function (row) {
          var text = row.textContent.toLowerCase();
          var cells = [].filter.call(row.children, function (cell, i) { return chosen && keep[i] && cell.tagName === "TD" && !cell.classList.contains("since-cell"); });
          var state = chosen ? verdict(cells) : "";
          if (chosen) counts[state]++;
          row.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; }) ||
            (wanted === "works" && state !== "works") || (wanted === "fails" && state !== "fails") ||
            (wanted === "nopass" && state === "works");
          shown += row.hidden ? 0 : 1;
        });
        group.hidden = shown === 0;
      });
      if (summary) summary.textContent = !chosen ? "" : summary.dataset.template.replace("{release}", chosen)
        .replace("{works}", counts.works).replace("{fails}", counts.fails).replace("{other}", counts.other);
    }
    box.addEventListener("input", update);
    if (release) release.addEventListener("change", update);
    if (show) show.addEventListener("change", update);
  });

  // "Copy Markdown" beside an entry's status line copies the entry as llms-full.txt gives it (the
  // button's data-markdown: cheatsheet/site/sheet_data.py) and says so in the status beside it.
  // The Clipboard API where the page may use it; else, as on some pages read from disk, a
  // selected text area.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.entry-copy");
    if (!button) return;
    var text = button.dataset.markdown, status = button.nextElementSibling;
    var copied = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(text).catch(function () { return copyBySelection(text); })
      : Promise.resolve(copyBySelection(text));
    copied.then(function () {
      status.textContent = button.dataset.done;
      setTimeout(function () { status.textContent = ""; }, 2000);
    });
  });

  function copyBySelection(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  // Material's instant-navigation progress bar has no accessible name (the label: the script
  // tag's data-loading, from cheatsheet/site/strings.py).
  new MutationObserver(function () {
    document.querySelectorAll("[role=progressbar]:not([aria-label])").forEach(function (bar) {
      bar.setAttribute("aria-label", script.dataset.loading);
    });
  }).observe(document.body, { childList: true, subtree: true });
})();
