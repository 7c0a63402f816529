// Only in the copy read from disk (file://, `python -m cheatsheet offline`), before Material's
// bundle. Material runs its search index in a Web Worker, which a file:// page may not start, and
// hides the search box when it cannot (Material's offline plugin loads a shim from unpkg.com for
// that, which a copy meant to work without a network cannot). The site searches with its own
// index (search.js) and Material's is empty, so this stand-in answers Material's messages as its
// worker would on an empty index: "ready" to the setup, no items to a query.
(function () {
  "use strict";
  if (location.protocol !== "file:") return;
  var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;  // Material's SearchMessageType
  function EmptyIndexWorker() {
    var target = new EventTarget();
    target.postMessage = function (message) {
      var reply = message.type === SETUP ? { type: READY } : message.type === QUERY ? { type: RESULT, data: { items: [], total: 0 } } : null;
      if (reply) setTimeout(function () { target.dispatchEvent(new MessageEvent("message", { data: reply })); });
    };
    target.terminate = function () {};
    return target;
  }
  window.Worker = EmptyIndexWorker;
})();
