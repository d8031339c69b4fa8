// The lecture decks' start-up (tools/build_slides.py): typeset the maths with the vendored KaTeX, start reveal.js
// with its notes (S key) and highlight plugins, and shrink the text of a slide whose cells are taller than the
// slide (down to 55 %; beyond that the slide scrolls). Nothing is fetched from the network.
(function () {
  "use strict";
  document.querySelectorAll(".reveal .slides .math").forEach(function (el) {
    if (el.closest("aside.notes")) return; // the speaker view has no KaTeX style sheet: notes keep the TeX
    katex.render(el.textContent, el, { displayMode: el.tagName === "DIV", throwOnError: false });
  });

  function fit(slide) {
    if (!slide || slide.dataset.fitted) return;
    var size = 1;
    slide.style.fontSize = "";
    while (slide.scrollHeight > slide.clientHeight + 1 && size > 0.56) {
      size -= 0.05;
      slide.style.fontSize = size.toFixed(2) + "em";
    }
    slide.dataset.fitted = size.toFixed(2);
  }

  var images = Array.prototype.map.call(document.querySelectorAll(".reveal img"), function (img) {
    return img.decode().catch(function () {});
  });
  Reveal.initialize({
    hash: true,
    slideNumber: "c/t",
    width: 1280,
    height: 760,
    margin: 0.04,
    center: false,
    transition: "fade",
    transitionSpeed: "fast",
    plugins: [RevealHighlight, RevealNotes],
  })
    .then(function () {
      return Promise.all(images);
    })
    .then(function () {
      fit(Reveal.getCurrentSlide());
      Reveal.on("slidechanged", function (event) {
        fit(event.currentSlide);
      });
      document.body.dataset.ready = "1";
    });
})();
