/** Offer `text` as a file download (UTF-8 with a byte-order mark, so spreadsheet programs read it as UTF-8); kept out of csv.ts, which unit tests load in Node. */
export function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob(['\ufeff', text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
