// boot.js - the page's first script: index.html runs it (async) as soon as
// its few modules are here, ahead of app.js and the cards it imports, to
// start the catalogue, the engine worker and the model download
// (controllers/prestart.js). app.js's widget goes on from what it began.
import { prestart } from './controllers/prestart.js';

prestart();
