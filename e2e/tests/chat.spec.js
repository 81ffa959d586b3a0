// The chat keeps what was said: the server holds a table's latest messages
// (`chat_history`), and the game page shows them whenever it (re)attaches
// to the table: on opening the link, after a reload, and after a dropped
// connection comes back. Only what the panel does not show yet is added,
// so a reconnect doubles nothing; live messages keep coming after it. A
// line from someone who watches, holding no seat, says so.

import AxeBuilder from '@axe-core/playwright';
import { test, expect } from '../support/fixtures.js';
import { status, play, cuttableSocket, refusingSocket, say, chatLines, aliceAndBob } from '../support/game.js';

/** Alice and Bob each say something; both see both lines. */
async function chatted(page, bob) {
  await say(page, 'hi Bob');
  await expect(chatLines(bob)).toHaveText(['hi Bob']);
  await say(bob, 'hi Alice');
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice']);
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice']);
  // Bob's line is said (the server answered), not only on its way.
  await expect(bob.locator('#chatlog .is-pending')).toHaveCount(0);
}

test('after a reload the chat shows what was said, once, and goes on', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await chatted(page, bob);
  await play(page, 'b2', 'X');

  await bob.reload();
  await expect(status(bob)).toHaveText('Your turn (O)');
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice']);
  // Who said what, as before the reload.
  await expect(bob.locator('#chatlog .chat-msg.is-mine .chat-text')).toHaveText(['hi Alice']);
  await expect(bob.locator('#chatlog .chat-msg .chat-from')).toHaveText(['Alice', 'Bob']);
  await expect(bob.locator('#chatlog')).not.toContainText('No messages yet');

  // Live messages follow the history.
  await say(page, 'welcome back');
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'welcome back']);
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice', 'welcome back']);
});

test('a spectator who opens the table later sees the chat so far', async ({ page, player }) => {
  const { bob, link } = await aliceAndBob(page, player);
  await chatted(page, bob);

  // Both seats are taken: Fay, opening the link, watches.
  const fay = await player('Fay');
  await fay.goto(link);
  await expect(status(fay)).toHaveText('Alice (X) to move');
  await expect(chatLines(fay)).toHaveText(['hi Bob', 'hi Alice']);
  await expect(fay.locator('#chatlog .chat-msg.is-mine')).toHaveCount(0);

  // And what is said next.
  await say(bob, 'hello Fay');
  await expect(chatLines(fay)).toHaveText(['hi Bob', 'hi Alice', 'hello Fay']);
  await say(fay, 'hi both');
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice', 'hello Fay', 'hi both']);
});

test('after a dropped connection the chat doubles nothing and catches up', async ({ page, player }) => {
  /** @type {Awaited<ReturnType<typeof cuttableSocket>> | null} */
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await cuttableSocket(b);
  });
  await chatted(page, bob);

  await net.cut();
  await expect(bob.locator('#conn')).toBeVisible();
  // Said while Bob's connection was down.
  await say(page, 'are you there?');
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice', 'are you there?']);

  net.restore();
  await expect(bob.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'are you there?']);
  await say(bob, 'back');
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'are you there?', 'back']);
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice', 'are you there?', 'back']);
});

test('a server that forgot its chat in a restart leaves what was shown', async ({ page, player }) => {
  // Bob's socket goes through the test, which can cut it and then answer
  // `chat_history` as a server that has just restarted would: empty.
  let forgetful = false;
  /** @type {Awaited<ReturnType<typeof cuttableSocket>> | null} */
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await cuttableSocket(b, {
      toServer: (msg, ws) => {
        if (!forgetful || msg.type !== 'chat_history') return false;
        ws.send(JSON.stringify({ type: 'chat_history', table_id: msg.table_id, messages: [] }));
        ws.send(JSON.stringify({ type: 'ok', id: msg.id, table_id: msg.table_id }));
        return true;
      },
    });
  });
  await chatted(page, bob);

  await net.cut();
  await expect(bob.locator('#conn')).toBeVisible();
  forgetful = true;
  net.restore();
  await expect(bob.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await say(page, 'still here');
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'still here']);
});

test('a line whose answer was lost with the connection is shown once, as said, when the server has it', async ({ page, player }) => {
  // Bob's socket goes through the test, which lets his next chat line reach
  // the server but drops what the server sends back, then cuts the socket.
  let swallow = false;
  /** @type {Awaited<ReturnType<typeof cuttableSocket>> | null} */
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await cuttableSocket(b, { toPage: () => swallow });
  });
  await chatted(page, bob);

  swallow = true;
  await say(bob, 'did you get this?');
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice', 'did you get this?']);
  await net.cut();
  await expect(bob.locator('#conn')).toBeVisible();
  swallow = false;
  net.restore();
  await expect(bob.locator('#conn')).toBeHidden({ timeout: 15_000 });
  // The history after the reconnect has the line: it is said, once, and
  // not "Not sent".
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'did you get this?']);
  await expect(bob.locator('#chatlog .is-pending, #chatlog .is-failed')).toHaveCount(0);
  await say(page, 'yes');
  await expect(chatLines(bob)).toHaveText(['hi Bob', 'hi Alice', 'did you get this?', 'yes']);
});

test('a line whose answer was lost with the connection, and that the server does not have, is marked not sent', async ({ page, player }) => {
  // Bob's socket goes through the test, which drops his next chat line and
  // cuts the socket: the server never had it.
  let drop = false;
  /** @type {Awaited<ReturnType<typeof cuttableSocket>> | null} */
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await cuttableSocket(b, { toServer: (msg) => drop && msg.type === 'chat' });
  });
  await chatted(page, bob);

  drop = true;
  await say(bob, 'lost line');
  await expect(bob.locator('#chatlog .is-pending')).toHaveCount(1);
  await net.cut();
  await expect(bob.locator('#conn')).toBeVisible();
  drop = false;
  net.restore();
  await expect(bob.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(bob.locator('#chatlog .is-failed')).toContainText('lost line');
  await expect(bob.locator('#chatlog .is-failed .chat-state')).toContainText('Not sent');
  await expect(chatLines(page)).toHaveText(['hi Bob', 'hi Alice']);
});

test("a line from someone watching is marked so, and a player's is not", async ({ page, player }) => {
  const { bob, link } = await aliceAndBob(page, player);
  const carol = await player('Carol');
  await carol.goto(`${link}?watch`);
  await expect(status(carol)).toHaveText('Alice (X) to move');
  await say(carol, 'good luck');
  await say(bob, 'thanks');
  await say(page, 'hi Carol');

  const marked = async (p) => {
    await expect(chatLines(p)).toHaveText(['good luck', 'thanks', 'hi Carol']);
    const from = p.locator('#chatlog .chat-msg .chat-from');
    await expect(from).toHaveText(['Carol watching', 'Bob', 'Alice']);
    const badges = p.locator('#chatlog .chat-msg .chat-badge');
    await expect(badges).toHaveCount(1);
    await expect(badges).toBeVisible();
    await expect(p.locator('#chatlog .chat-msg').nth(0).locator('.chat-badge')).toHaveText('watching');
  };
  for (const p of [page, bob, carol]) await marked(p);
  // The history after a reload marks it too.
  await page.reload();
  await expect(status(page)).toHaveText('Your turn (X)');
  await marked(page);

  // The seats change: Bob leaves, Carol takes his seat. Each line keeps
  // what its writer was when it was written.
  await bob.locator('#leave').click();
  await bob.getByRole('button', { name: 'Leave and forfeit?' }).click();
  await carol.getByRole('button', { name: 'Take the seat' }).click();
  await expect(status(page)).toHaveText(/^(Your turn \(X\)|Waiting for Carol…)$/);
  await page.reload();
  await expect(status(page)).toHaveText(/^(Your turn \(X\)|Waiting for Carol…)$/);
  await marked(page);
});

test('a line the server refused shows why in full, also the last of a full log', async ({ page, player }) => {
  const net = await refusingSocket(page);
  await aliceAndBob(page, player);
  // Enough lines said to make the log scroll; then the server refuses one.
  const box = page.getByRole('textbox', { name: 'Chat message' });
  for (const text of ['one', 'two', 'three', 'four', 'five']) await say(page, text);
  await expect(page.locator('#chatlog .chat-msg:not(.is-pending)')).toHaveCount(5);
  net.refuse('chat', 'rate_limited', 'Too many chat messages: 5 in a row, then one every 2.0 s');
  await box.fill('six');
  await box.press('Enter');
  const refusal = page.locator('#chatlog .chat-msg.is-failed .chat-state');
  await expect(refusal).toHaveText('Not sent: Too many chat messages: 5 in a row, then one every 2.0 s');
  // The whole reason is in view inside the log, not cut at its bottom.
  await expect.poll(async () => {
    const [log, line] = await Promise.all([page.locator('#chatlog').boundingBox(), refusal.boundingBox()]);
    return Math.round(log.y + log.height - (line.y + line.height));
  }).toBeGreaterThanOrEqual(0);
});

test('a chat log that overflows can be scrolled from the keyboard, in every browser', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  // Five lines each (the server takes five in a row) overflow the log.
  for (let i = 0; i < 5; i += 1) {
    await say(page, `Alice says a longer line, number ${i}, to fill the log`);
    await say(bob, `Bob answers with a line as long, number ${i}, to fill it`);
  }
  const log = bob.locator('#chatlog');
  await expect(chatLines(bob)).toHaveCount(10);
  expect(await log.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);

  // Chromium lets the keyboard into any scroller; Safari only into one
  // that is a tab stop, which axe asks for.
  const { violations } = await new AxeBuilder({ page: bob }).include('#chatlog').withRules(['scrollable-region-focusable']).analyze();
  expect(violations.map((v) => v.id)).toEqual([]);
  await bob.locator('#moves').focus();
  await bob.keyboard.press('Tab');
  await expect(log).toBeFocused();
  await bob.keyboard.press('Home');
  await expect.poll(() => log.evaluate((el) => el.scrollTop)).toBe(0);
});

test('the chat box takes 280 characters, emoji counted one each as the server counts them', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  const box = page.getByRole('textbox', { name: 'Chat message' });
  // An emoji is two UTF-16 code units but one character.
  const party = '🎉'.repeat(280);
  await box.fill(`${party}🎉🎉`);
  await expect(box).toHaveValue(party);
  await box.press('Enter');
  await expect(chatLines(bob)).toHaveText([party]);

  // Typed at the limit in the middle, a character is not taken, and
  // nothing after it is lost.
  await box.fill(`${'a'.repeat(279)}z`);
  await box.press('Home');
  await box.press('b');
  await expect(box).toHaveValue(`${'a'.repeat(279)}z`);

  // A name too: up to 24 characters, emoji or not.
  await page.locator('#me-name').click();
  const name = page.getByRole('dialog', { name: 'Your name' }).getByRole('textbox');
  await name.fill('🦊'.repeat(30));
  await expect(name).toHaveValue('🦊'.repeat(24));
});
