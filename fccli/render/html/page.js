(function () {
  "use strict";
  // Linked fields: both ends of an fc diff mapping row carry its number in data-l (the most
  // specific row first). Hover lights the row up in both files, a click pins it, a link to a
  // field (#anchor) opens what folds it and pins it. Everything else on the page works without.
  var d = document, lit = null, pinned = null;
  d.documentElement.className += " js";
  function field(el) {
    return el && el.closest ? el.closest("pre.json [data-l]") : null;
  }
  function row(el) {
    return el ? el.getAttribute("data-l").split(" ")[0] : null;
  }
  function paint(n, cls, on) {
    if (!n) return [];
    var all = d.querySelectorAll('[data-l~="' + n + '"]');
    for (var i = 0; i < all.length; i++) all[i].classList.toggle(cls, on);
    return all;
  }
  function caption(el, n) {
    var pair = el.closest(".pair"), cap = pair && pair.querySelector(".cap");
    if (!cap) return;
    var ends = pair.querySelectorAll('[data-l~="' + n + '"]'), side = {}, change = "";
    for (var i = 0; i < ends.length; i++) {
      var wire = ends[i].closest("figure").getAttribute("data-role").indexOf("wire_") === 0;
      (side[wire ? "b" : "a"] = side[wire ? "b" : "a"] || []).push(ends[i].getAttribute("data-p"));
      if (!wire && row(ends[i]) === n) change = ends[i].getAttribute("data-n") || "";
    }
    cap.textContent = (side.a || []).join(", ") + " \u21c4 " + (side.b || []).join(", ") +
      (change ? "  \u00b7  " + change : "");
  }
  function light(el) {
    var n = row(field(el));
    if (n === lit) return;
    paint(lit, "hl", false);
    lit = n;
    paint(n, "hl", true);
    if (n) caption(field(el), n);
  }
  function pin(el) {
    paint(pinned, "pin", false);
    var n = row(el);
    pinned = n === pinned ? null : n;
    var ends = paint(pinned, "pin", true);
    if (pinned) {
      caption(el, pinned);
      for (var i = 0; i < ends.length; i++) {
        if (ends[i] !== el && !ends[i].contains(el) && !el.contains(ends[i])) {
          var box = ends[i].closest("pre");
          if (box && box.scrollHeight > box.clientHeight) {
            box.scrollTop = ends[i].offsetTop - box.offsetTop - 40;
          }
        }
      }
    }
  }
  function unfold(el) {
    for (var p = el; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
  }
  function go() {
    var id = decodeURIComponent(location.hash.slice(1)), el = id && d.getElementById(id);
    if (!el) return;
    unfold(el);
    if (el.hasAttribute("data-l") && row(el) !== pinned) pin(el);
    el.scrollIntoView({ block: "center" });
  }
  d.addEventListener("mouseover", function (e) { light(e.target); });
  d.addEventListener("click", function (e) {
    var f = field(e.target);
    if (f) return pin(f);
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    var el = a && d.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
    if (el) unfold(el);
  });
  window.addEventListener("hashchange", go);
  window.addEventListener("beforeprint", function () {
    var t = d.querySelectorAll("details.thinking,details.long");
    for (var i = 0; i < t.length; i++) t[i].open = true;
  });
  go();
})();
