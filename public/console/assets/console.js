// edgecron console: progressive enhancement only. Every page and action works without this file
// (confirmations fall back to a server-rendered page, the preview to a "Preview schedule" button).
(() => {
  const dialog = document.getElementById("confirm-dialog");

  function markConfirmed(form) {
    let input = form.querySelector('input[name="confirmed"]');
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = "confirmed";
      form.append(input);
    }
    input.value = "1";
    form.dataset.confirmed = "1";
  }

  // Forms with data-confirm ask first, in a <dialog> (or window.confirm where <dialog> is missing).
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const submitter = event.submitter;
    // A button may carry its own question (one row's "Redrive" inside a multi-select form).
    const message = submitter?.dataset.confirm || form.dataset.confirm;
    if (!message || form.dataset.confirmed === "1") return;
    event.preventDefault();
    const proceed = () => {
      markConfirmed(form);
      form.requestSubmit(submitter || undefined);
    };
    if (dialog && typeof dialog.showModal === "function") {
      dialog.querySelector("#confirm-message").textContent = message;
      dialog.returnValue = "";
      dialog.addEventListener(
        "close",
        () => {
          if (dialog.returnValue === "confirm") proceed();
          else if (submitter) submitter.focus();
        },
        { once: true },
      );
      dialog.showModal();
      dialog.querySelector("#confirm-ok").focus();
    } else if (window.confirm(message)) {
      proceed();
    }
  });

  // "Select all" for the dead-letter checkboxes.
  for (const toggle of document.querySelectorAll("input[data-select-all]")) {
    toggle.addEventListener("change", () => {
      for (const box of document.querySelectorAll(`input[data-select="${toggle.dataset.selectAll}"]`)) {
        if (!box.disabled) box.checked = toggle.checked;
      }
    });
  }

  // Auto-refresh for pages with live run data: off by default, remembered for the tab, and never
  // while the operator is typing, reading a dead letter or answering a confirmation.
  const auto = document.querySelector("input[data-autorefresh]");
  if (auto) {
    auto.closest(".autorefresh").hidden = false;
    auto.checked = sessionStorage.getItem("edgecron.autorefresh") === "1";
    let handle;
    const busy = () =>
      document.querySelector("dialog[open], details[open]") ||
      (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName) &&
        document.activeElement !== auto);
    const arm = () => {
      clearTimeout(handle);
      if (auto.checked) handle = setTimeout(() => (busy() ? arm() : location.reload()), 5000);
    };
    auto.addEventListener("change", () => {
      sessionStorage.setItem("edgecron.autorefresh", auto.checked ? "1" : "0");
      arm();
    });
    arm();
  }

  // Move focus to a form's error summary so keyboard and screen-reader users land on it.
  document.getElementById("form-errors")?.focus();

  // New/edit job: show the fields of the chosen schedule kind and preview fire times as you type.
  const form = document.querySelector("form[data-preview-url]");
  if (!form) return;
  const region = document.getElementById("schedule-preview");
  // The target's fields for its kind (all shown without JavaScript; the server keeps the right ones).
  const targetType = form.querySelector('select[name="target.type"]');
  const showTargetKind = () => {
    for (const group of form.querySelectorAll(".target-fields"))
      group.hidden = !group.dataset.targetKinds.split(" ").includes(targetType?.value || "http");
  };
  targetType?.addEventListener("change", showTargetKind);
  showTargetKind();
  const kindOf = () => form.querySelector('input[name="schedule.type"]:checked')?.value || "cron";
  const showKind = () => {
    for (const group of form.querySelectorAll(".kind-fields")) group.hidden = group.dataset.kind !== kindOf();
  };
  // A schedule that now previews cleanly makes the last submit's schedule errors stale.
  const clearScheduleErrors = () => {
    for (const field of form.querySelectorAll('[name^="schedule."][aria-invalid]')) {
      field.removeAttribute("aria-invalid");
      document.getElementById(`${field.id}-error`)?.remove();
      const rest = (field.getAttribute("aria-describedby") || "")
        .split(" ")
        .filter((id) => id !== `${field.id}-error`);
      if (rest.length) field.setAttribute("aria-describedby", rest.join(" "));
      else field.removeAttribute("aria-describedby");
    }
    const summary = document.getElementById("form-errors");
    for (const link of summary?.querySelectorAll('a[href^="#f-schedule-"]') ?? [])
      link.closest("li")?.remove();
    if (summary && !summary.querySelector("li")) summary.remove();
  };
  let timer;
  let sequence = 0;
  const refresh = async () => {
    const mine = ++sequence;
    region.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(form.dataset.previewUrl, {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: { "x-console-fragment": "preview", "x-csrf-token": form.elements._csrf.value },
        credentials: "same-origin",
      });
      // The fragment is rendered (and escaped) by our own server.
      if (mine === sequence) {
        region.innerHTML = await response.text();
        if (!region.querySelector(".preview-errors")) clearScheduleErrors();
      }
    } catch {
      if (mine === sequence) region.textContent = "Preview unavailable: the console could not be reached.";
    } finally {
      if (mine === sequence) region.removeAttribute("aria-busy");
    }
  };
  const schedule = (delayMs) => {
    clearTimeout(timer);
    timer = setTimeout(refresh, delayMs);
  };
  form.addEventListener("input", (event) => {
    if (event.target.name?.startsWith("schedule.")) schedule(300);
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "schedule.type") {
      showKind();
      schedule(0);
    }
  });
  form.querySelector("[data-preview-button]")?.addEventListener("click", (event) => {
    event.preventDefault();
    schedule(0);
  });
  showKind();
  const filled = ["expr", "every", "at", "delay"].some((name) => form.elements[`schedule.${name}`]?.value);
  if (filled && !region.querySelector("ol, .preview-errors")) schedule(0);
})();
