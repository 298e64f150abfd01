// The account area's one script: progressive enhancement only. It reveals the Copy button
// next to a new API key and copies the key; without JavaScript the key is still selected with one click
// (CSS user-select: all) and copied by hand.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.querySelector(`[data-copy-status="${button.dataset.copy}"]`);
  if (!field) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.textContent.trim());
      button.textContent = 'Copied';
      if (status) status.textContent = 'The key is on your clipboard.';
    } catch {
      getSelection().selectAllChildren(field);
      if (status) status.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected key.';
    }
  });
}
