// Plans and what each allows. Requests per hour come from the v1 specification (Limits); upload
// bytes per whole request are configurable (defaults: 10 / 100 / 250 / 1024 MiB); pages written per
// merge or split bound the work one request can ask for, and the synchronous calls in progress what
// one user may hold of a server at once (openapi.yaml).
import type { UploadLimits } from '../config.js';

export const PLANS = ['free', 'premium', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  /** Rolling one-hour cap; `null` is Enterprise's "unlimited". */
  requestsPerHour: number | null;
  uploadBytes: number;
  /** Most pages one merge or split may write in all its outputs (engines/page-budget.ts). */
  pagesPerRequest: number;
  /** Most pages one compression may read: it cannot be cut into turns, so this bounds its time in a slot. */
  compressPages: number;
  /** Most pages one request of OCR of documents may read. */
  ocrPages: number;
  /** Most images one images-to-PDF request may make pages of, a TIFF's pages each. */
  imagesPerRequest: number;
  /** Most pixels of one uploaded image for images to PDF (all its pages together), or of one drawn page. */
  imagePixels: number;
  /** Most pages one PDF-to-images request may draw. */
  renderPages: number;
  /** Most seconds one HTML-to-PDF request may take, from loading the page to its last printed page. */
  htmlSeconds: number;
  /** Most pages one HTML-to-PDF request may print. */
  htmlPages: number;
  /** Most seconds LibreOffice may take to convert one Office-to-PDF document. */
  officeSeconds: number;
  /** Most bytes LibreOffice may allocate for one Office-to-PDF conversion. */
  officeMemoryBytes: number;
  /** Most pages one Office-to-PDF conversion may write. */
  officePages: number;
  /** Most queued and running jobs at once before `Prefer: respond-async` is refused. */
  unfinishedJobs: number;
  /** Most synchronous calls of the user in progress at once in one server process (admitted, not answered). */
  syncCalls: number;
  /** Most bytes of upload those calls may carry together (their Content-Length, or the plan's cap). */
  syncBytes: number;
}

const REQUESTS_PER_HOUR: Record<Plan, number | null> = {
  free: 10,
  premium: 1000,
  business: 5000,
  enterprise: null,
};

// Sized from the work, not the spec: qpdf writes some 5,000 pages a second here, so Free's budget is
// under a second of tool time and Enterprise's covers merging 20 files at the 5000-page default cap.
// A split of 100 ranges over a 5000-page file asked 500,000.
const PAGES_PER_REQUEST: Record<Plan, number> = {
  free: 2_000,
  premium: 10_000,
  business: 25_000,
  enterprise: 100_000,
};

// Pages read by one compression or OCR of documents, sized from the work: Ghostscript with its content
// check took about 0.3 s a page here, OCRmyPDF about 3 s a page. A Free compression then holds a slot
// for some 30 s at most, a Free OCR request some 2.5 minutes; Enterprise's match the server's page cap
// (PDN_MAX_PAGES, 5000 by default).
const COMPRESS_PAGES: Record<Plan, number> = {
  free: 100,
  premium: 1_000,
  business: 2_500,
  enterprise: 5_000,
};
const OCR_PAGES: Record<Plan, number> = { free: 50, premium: 500, business: 2_000, enterprise: 5_000 };

// Images to PDF: a Free request is a phone's photo album page (20 photos of up to 16 megapixels);
// paying plans reach the server's own pixel cap (PDN_MAX_IMAGE_PIXELS, 40 million by default), which
// bounds every plan. Images that are decoded (WebP, BMP, TIFF) take about 0.1 s a megapixel here.
// PDF to images draws a page in about the time a compression reads one (pdftoppm at 150 dpi, some
// 0.1-0.3 s a page here): the same pages as compression.
const RENDER_PAGES: Record<Plan, number> = { free: 100, premium: 1_000, business: 2_500, enterprise: 5_000 };
// HTML to PDF: a page's time in its slot, scripts and waits included, and what it may print. Chromium
// printed some 40 pages of a styled manual a second here; a Free call holds a slot 10 s at most.
const HTML_SECONDS: Record<Plan, number> = { free: 10, premium: 30, business: 60, enterprise: 120 };
const HTML_PAGES: Record<Plan, number> = { free: 100, premium: 1_000, business: 2_500, enterprise: 5_000 };
// Office to PDF: a warm LibreOffice converted the corpus's documents (Word, Excel, PowerPoint and
// OpenDocument, one to nine pages) in 0.16 s each on average here, so a Free call of 30 s takes
// documents of hundreds of pages and stops a hostile one within a slot's fair share. Memory is all the
// data LibreOffice may hold (Linux's RLIMIT_DATA), of which it keeps 70 to 190 MB of its own between
// documents: a sheet of a billion cells reached 1 GB in 17 s, and under Free's limit failed to load
// after 10 s. The pages are PDF to images' pages.
const OFFICE_SECONDS: Record<Plan, number> = { free: 30, premium: 60, business: 120, enterprise: 300 };
const OFFICE_MEMORY_MIB: Record<Plan, number> = {
  free: 1024,
  premium: 1536,
  business: 2048,
  enterprise: 3072,
};
const IMAGES_PER_REQUEST: Record<Plan, number> = { free: 20, premium: 100, business: 250, enterprise: 500 };
const IMAGE_PIXELS: Record<Plan, number> = {
  free: 16_000_000,
  premium: 25_000_000,
  business: 40_000_000,
  enterprise: 40_000_000,
};

// Enough for a CI pipeline to hand over a batch (Premium: 100 files) without one user filling the
// queue for everybody; Free stays small, as its hourly limit is 10 (openapi.yaml, "Jobs").
const UNFINISHED_JOBS: Record<Plan, number> = {
  free: 5,
  premium: 100,
  business: 250,
  enterprise: 1000,
};

// Synchronous calls in progress at once, per user and server process: a user may keep this many
// connections and uploads waiting for a slot, and no more, whatever the server's load (openapi.yaml,
// "Admission order and back-pressure"). Free's is its hourly limit, so a burst of its hour is served.
const SYNC_CALLS: Record<Plan, number> = {
  free: 10,
  premium: 20,
  business: 50,
  enterprise: 100,
};

/** The upload bytes those calls may hold on the server's disk at once: this many whole requests' worth. */
const SYNC_UPLOADS_AT_ONCE = 4;

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function planLimits(plan: Plan, uploadLimits: UploadLimits): PlanLimits {
  return {
    requestsPerHour: REQUESTS_PER_HOUR[plan],
    uploadBytes: uploadLimits[plan],
    pagesPerRequest: PAGES_PER_REQUEST[plan],
    compressPages: COMPRESS_PAGES[plan],
    ocrPages: OCR_PAGES[plan],
    imagesPerRequest: IMAGES_PER_REQUEST[plan],
    imagePixels: IMAGE_PIXELS[plan],
    renderPages: RENDER_PAGES[plan],
    htmlSeconds: HTML_SECONDS[plan],
    htmlPages: HTML_PAGES[plan],
    officeSeconds: OFFICE_SECONDS[plan],
    officeMemoryBytes: OFFICE_MEMORY_MIB[plan] * 2 ** 20,
    officePages: RENDER_PAGES[plan],
    unfinishedJobs: UNFINISHED_JOBS[plan],
    syncCalls: SYNC_CALLS[plan],
    syncBytes: SYNC_UPLOADS_AT_ONCE * uploadLimits[plan],
  };
}

/** How people write the plan in messages: "Free", "Enterprise". */
export function planTitle(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
