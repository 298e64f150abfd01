// Where a request goes: a path joins the base URL as text, so a base URL's path prefix is kept
// (`https://host/pdn` + `/api/v1/compress`); an absolute URL is used as it is.
export function resolveUrl(baseUrl: string, url: string): string {
  return /^https?:\/\//i.test(url) ? url : `${baseUrl}${url}`;
}
