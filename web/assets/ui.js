// iolens serve: behaviour shared by the pages (no data, no network).
(function () {
  'use strict';
  // A click anywhere on a row of a job table opens the job, as its link does.
  document.addEventListener('click', function (ev) {
    if (ev.defaultPrevented || ev.button !== 0 || ev.target.closest('a, button, input, label')) return;
    const row = ev.target.closest('tr.row-link');
    if (!row || String(window.getSelection())) return;
    const href = row.getAttribute('data-href');
    if (!href || !href.startsWith('/')) return;
    if (ev.ctrlKey || ev.metaKey) window.open(href, '_blank', 'noopener');
    else window.location.assign(href);
  });
  // The filter form leaves its empty fields out of the URL.
  const form = document.getElementById('filters');
  if (form) {
    form.addEventListener('submit', function () {
      for (const el of form.querySelectorAll('input[name]')) {
        if (el.value.trim() === '') el.disabled = true;
      }
    });
    // Fields re-enabled when the page comes back from the history cache.
    window.addEventListener('pageshow', function () {
      for (const el of form.querySelectorAll('input[name]')) el.disabled = false;
    });
  }
})();
