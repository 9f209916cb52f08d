"use strict";
(function () {
  var timeline = document.getElementById("timeline");
  var calls = Array.prototype.slice.call(timeline.children).filter(function (el) {
    return el.tagName === "DETAILS";
  });
  var filter = document.getElementById("filter");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[data-kind]"));

  function apply() {
    var query = filter.value.trim().toLowerCase();
    var on = {};
    boxes.forEach(function (box) { on[box.dataset.kind] = box.checked; });
    calls.forEach(function (call) {
      var kinds = (call.dataset.kinds || "").split(" ");
      var kindShown = kinds.some(function (kind) { return on[kind]; });
      var textShown = !query || (call.dataset.search || "").indexOf(query) >= 0;
      call.hidden = !(kindShown && textShown);
    });
  }

  function setAll(open) {
    var all = document.querySelectorAll("details.call");
    for (var i = 0; i < all.length; i++) { all[i].open = open; }
  }

  // Opens every <details> around the target of the address's #fragment and scrolls to it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    for (var el = target; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; el.hidden = false; }
    }
    target.scrollIntoView({ block: "start" });
  }

  filter.addEventListener("input", apply);
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  window.addEventListener("hashchange", reveal);
  reveal();
})();
