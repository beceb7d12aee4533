// i18n/index.js - the UI language, with every UI language's strings: what
// the page's modules import (the lookup itself is i18n/core.js, which
// carries English only, for the modules that start the engine early).

import { addUiLanguage } from './core.js';
import fr from './fr.js';
import de from './de.js';
import es from './es.js';

addUiLanguage('fr', fr);
addUiLanguage('de', de);
addUiLanguage('es', es);

export * from './core.js';
