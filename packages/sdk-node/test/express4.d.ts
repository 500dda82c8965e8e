/** Express 4, installed as the alias `express4` (devDependency) to test the middleware on both majors. */
declare module 'express4' {
  import express from 'express';
  export default express;
}
