// i18n/all.js - every UI language's strings at once, for Node: the tests
// and scripts that look up French, German or Spanish without awaiting
// loadUiLanguage. The page never imports it (it loads the language it shows).

import { addUiLanguage } from './core.js';
import fr from './fr.js';
import de from './de.js';
import es from './es.js';

addUiLanguage('fr', fr);
addUiLanguage('de', de);
addUiLanguage('es', es);

export * from './core.js';
