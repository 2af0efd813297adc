// Browser plumbing for the console suite: Debian's Chromium, screenshots, and small page helpers.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { ROOT, waitUntil } from "../e2e/harness";

export const ARTIFACTS = join(ROOT, "test", "browser", "artifacts");
export const WIDTHS = [1366, 390] as const;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Full-page screenshot at the current width: artifacts/<name>-<width>.png. */
export async function shoot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const path = join(ARTIFACTS, `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export async function setWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
}

/** Submits a data-confirm form's button and accepts the console's <dialog>. */
export async function clickAndConfirm(page: Page, button: ReturnType<Page["getByRole"]>): Promise<void> {
  await button.click();
  const dialog = page.locator("#confirm-dialog");
  await dialog.waitFor({ state: "visible" });
  await Promise.all([page.waitForNavigation(), page.locator("#confirm-ok").click()]);
}

/** Reloads until `probe` holds: the console renders on the server, so new data needs a reload. */
export async function reloadUntil(
  page: Page,
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
) {
  await waitUntil(
    async () => {
      await page.reload();
      return probe();
    },
    { timeoutMs, intervalMs: 1000, what },
  );
}

/** Width of the document beyond the viewport: 0 means no sideways scrolling of the page itself. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The widest elements sticking out past the viewport, to name the culprit when a page overflows. */
export async function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("body *"))
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 8)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${Array.from(element.classList).join(".")} right=${Math.round(element.getBoundingClientRect().right)}`,
      ),
  );
}

/**
 * How far a table's last header cell sticks out past what its scroll container shows (0 or less:
 * the whole table is visible without scrolling it sideways).
 */
export async function lastColumnOverflowPx(page: Page, tableSelector: string): Promise<number> {
  return page.evaluate((selector) => {
    const table = document.querySelector(selector);
    const wrap = table?.closest(".table-wrap");
    const last = table?.querySelector("thead th:last-child");
    if (!table || !wrap || !last) throw new Error(`no table ${selector}`);
    return Math.round(last.getBoundingClientRect().right - wrap.getBoundingClientRect().right);
  }, tableSelector);
}
