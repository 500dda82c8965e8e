import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ErrorBoundary } from './components/ErrorBoundary';
import { applyTheme, loadTheme } from './theme';
import './styles/base.css';
import './styles/accounts-ai.css';
import './styles/traces.css';
import './styles/logs-metrics.css';
import './styles/service-map.css';

applyTheme(loadTheme());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
